"""Lemma 7 (moments).

For m > -1:  int_0^1 x^m rho_H(x) dx = (1 - a + a/(m+1))^H  (delta included);
per layer:   prod_l (1 - a_l + a_l/(m+1)).  m = 0: total mass 1.
Finite-L counterpart (exact):  sum_j w_j C(j-1, m)/C(L-1, m) = same value,
where w = last row of N_H ... N_1 (the columns of D in lemma 2 are eigenvectors).

Routes
  A  exact: sum_k P(K=k) (m+1)^-k against the closed form (Fractions), with
     P(K=k) from the pmf formula / Poisson-binomial DP;
  B  exact, finite L = 50: the suffix-sum recursion row paired with C(j-1, m);
  C  mpmath.quad of x^m * (smooth part, binomial sum) in t = ln 1/x, plus the
     delta weight (1-a)^H, 50 digits, m in {0, 1/2, 2, 5, -1/2}.
See proofs/07_moments.md.
"""

from __future__ import annotations

import math
from fractions import Fraction

import proofkit as pk

NAME = "moments"
TITLE = "int x^m rho_H = (1-a+a/(m+1))^H, mass 1"


def closed(avec, m):
    out = 1
    for a in avec:
        out *= 1 - a + a / (m + 1)
    return out


def _cut(ctx, m):
    """Truncation point of int_0^oo e^-(m+1)t poly(t) dt: the tail beyond
    240/(m+1) is below e^-240 * poly < 1e-90 for the degrees used (<= 7)."""
    return 240 / (m + 1)


def run(perturb: float = 0.0, fail_fast: bool = False) -> pk.Result:
    T = pk.Tally(NAME, TITLE, fail_fast=fail_fast)
    eps = Fraction(perturb)
    schedules = [tuple([a] * H) for a in pk.A_GRID for H in range(0, 9)] + [
        s[:H] for s in pk.SCHEDULES for H in (1, 4, 8)
    ]

    # A: hop-count expectation E[(m+1)^-K]
    for avec in schedules:
        pmf = pk.poisson_binom_pmf(avec)
        for m in range(0, 6):
            lhs = sum(Fraction(w) / (m + 1) ** k for k, w in enumerate(pmf))
            T.exact(lhs, closed(avec, Fraction(m)) * (1 + eps), f"E[(m+1)^-K] m={m} a={avec}")
        if avec and all(a == avec[0] for a in avec):
            T.exact(pmf, pk.binom_pmf(len(avec), avec[0]), f"binomial pmf a={avec[0]} H={len(avec)}")

    # B: finite L = 50 (exact)
    L = 50
    for avec in [s for s in schedules if len(s) in (0, 1, 8)]:
        w = pk.suffix_recursion(L, avec)
        for m in range(0, 6):
            lhs = sum(w[j] * math.comb(j, m) for j in range(L)) / math.comb(L - 1, m)
            T.exact(lhs, closed(avec, Fraction(m)) * (1 + eps), f"finite L m={m} a={avec}")

    # C: quadrature of the continuum density
    ctx = pk.mpctx(pk.DPS)
    ms_q = [Fraction(0), Fraction(1, 2), Fraction(2), Fraction(5), Fraction(-1, 2)]
    ms = [pk.to_mpf(ctx, m) for m in ms_q]
    cases = [(a, H) for a in pk.A_GRID for H in (0, 1, 3, 8)]
    for a_q, H in cases:
        a = pk.to_mpf(ctx, a_q)
        pmf = pk.binom_pmf(H, a)
        coef = [pmf[k] / ctx.factorial(k - 1) for k in range(1, H + 1)]
        for m in ms:
            def integrand(t, coef=coef, m=m):  # x^m rho_smooth(x) dx with x = e^-t
                acc = ctx.mpf(0)
                for c in reversed(coef):
                    acc = acc * t + c
                return acc * ctx.exp(-(m + 1) * t)

            smooth = ctx.quad(integrand, [0, _cut(ctx, m)]) if any(coef) else ctx.mpf(0)
            val = smooth + (1 - a) ** H
            want = (1 - a + a / (m + 1)) ** H
            T.close(ctx, val, want * (1 + ctx.mpf(perturb)), f"quad a={a_q} H={H} m={m}")
    sched = pk.SCHEDULES[1]
    pmf = [pk.to_mpf(ctx, w) for w in pk.poisson_binom_pmf(sched)]
    coef = [pmf[k] / ctx.factorial(k - 1) for k in range(1, len(pmf))]
    for m_q, m in zip(ms_q, ms):
        f = lambda t, m=m: sum(c * t**i for i, c in enumerate(coef)) * ctx.exp(-(m + 1) * t)
        val = ctx.quad(f, [0, _cut(ctx, m)]) + pmf[0]
        T.close(ctx, val, pk.to_mpf(ctx, closed(sched, m_q)) * (1 + ctx.mpf(perturb)),
                f"quad schedule m={m_q}")
    return T.result(
        "exact: a grid x H=0..8 + 3 schedules, m=0..5, finite L=50; "
        "quad: a grid x H in {0,1,3,8} x m in {0,1/2,2,5,-1/2} + schedule"
    )
