"""Lemma 3 (hop_decomposition).

  prod_l ((1 - a_l) I + a_l M) = sum_k P(K = k) M^k,
  K ~ Binomial(H, a) (constant a) or Poisson-binomial(a_1..a_H) (per layer).

Routes
  A  dense exact products of the N_l (Fractions), in a shuffled layer order;
  B  sum_k pmf(k) M^k with the pmf from its own formula / coefficient DP and
     M^k from the exact Cesàro powers;
  C  the O(H L) suffix-sum recursion of docs/theory.md §2 (own implementation here),
     exact at L = 50 and at 50 digits for irrational a;
  D  large L: recursion at 50 digits vs sum_k pmf(k) h_{k-1}/L via Hurwitz
     power sums (L = 1000, H = 30).
See proofs/03_hop_decomposition.md.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import proofkit as pk

NAME = "hop_decomposition"
TITLE = "N^H = sum_k P(K=k) M^k, K ~ Bin / Poisson-Bin"
HMAX = 8


def _mix(pmf, P, L):
    """sum_k pmf[k] * (M^k restricted to L x L)."""
    out = [[Fraction(0)] * L for _ in range(L)]
    for k, w in enumerate(pmf):
        if w == 0:
            continue
        Pk = P[k]
        for i in range(L):
            for j in range(i + 1):
                out[i][j] += w * Pk[i][j]
    return out


def run(perturb: float = 0.0, fail_fast: bool = False) -> pk.Result:
    T = pk.Tally(NAME, TITLE, fail_fast=fail_fast)
    eps = Fraction(perturb)
    P = pk.cesaro_powers(50, HMAX)
    rng = random.Random(7)

    # A vs B, constant a, L = 12
    for L in (12,):
        M = [list(r[:L]) for r in P[1][:L]]
        for a in pk.A_GRID:
            N = [[(1 - a) * (i == j) + a * M[i][j] for j in range(L)] for i in range(L)]
            prod = pk.identity(L)
            for H in range(HMAX + 1):
                if H:
                    prod = pk.matmul(prod, N)
                want = _mix([w * (1 + eps) for w in pk.binom_pmf(H, a)], P, L)
                T.exact(prod, want, f"const a={a} H={H} L={L}")

    # A vs B, per-layer schedules, shuffled multiplication order, L = 12
    L = 12
    M = [list(r[:L]) for r in P[1][:L]]
    for sched in pk.SCHEDULES:
        for H in range(HMAX + 1):
            layers = list(sched[:H])
            order = layers[:]
            rng.shuffle(order)
            prod = pk.identity(L)
            for a in order:
                N = [[(1 - a) * (i == j) + a * M[i][j] for j in range(L)] for i in range(L)]
                prod = pk.matmul(prod, N)
            want = _mix([w * (1 + eps) for w in pk.poisson_binom_pmf(layers)], P, L)
            T.exact(prod, want, f"schedule {sched} H={H}")

    # C: suffix recursion, exact, L = 50 (last row, and every L' <= 50 via its own run)
    for Lr in (1, 2, 12, 50):
        for avec in [tuple([a] * H) for a in pk.A_GRID for H in (0, 1, 8)] + list(pk.SCHEDULES):
            row = pk.suffix_recursion(Lr, avec)
            pmf = pk.poisson_binom_pmf(avec)
            want = [sum(pmf[k] * P[k][Lr - 1][j] for k in range(len(pmf))) * (1 + eps) for j in range(Lr)]
            T.exact(row, want, f"recursion L={Lr} a={avec}")

    # C at 50 digits with irrational a (the closed form has no exact rational value)
    ctx = pk.mpctx(pk.DPS)
    sq2 = ctx.sqrt(2)
    mp_cases = {
        "a=1/sqrt2": [1 / sq2] * HMAX,
        "a=1/pi": [1 / ctx.pi] * HMAX,
        "a_l=1/(l+sqrt2)": [1 / (l + sq2) for l in range(1, HMAX + 1)],
    }
    for label, avec in mp_cases.items():
        for H in (1, 4, HMAX):
            row = pk.suffix_recursion(50, avec[:H], one=ctx.mpf(1))
            pmf = (pk.binom_pmf(H, avec[0]) if label.startswith("a=") else pk.poisson_binom_pmf(avec[:H]))
            for j in range(50):
                want = sum(pmf[k] * pk.to_mpf(ctx, P[k][49][j]) for k in range(H + 1))
                T.close(ctx, row[j], want * (1 + ctx.mpf(perturb)), f"mp {label} H={H} j={j + 1}")

    # D: large L, H = 30, recursion vs hop mixture of Hurwitz chain sums
    ctx60 = pk.mpctx(60)
    Lb, Hb = 1000, 30
    for label, a in (("a=1/2", ctx60.mpf(1) / 2), ("a=1/sqrt2", 1 / ctx60.sqrt(2))):
        row = pk.suffix_recursion(Lb, [a] * Hb, one=ctx60.mpf(1))
        pmf = pk.binom_pmf(Hb, a)
        for j in (1, 2, 100, 500, 999, 1000):
            h = pk.chain_h_hurwitz(ctx60, j, Lb, Hb - 1)
            want = (pmf[0] if j == Lb else 0) + sum(pmf[k] * h[k - 1] for k in range(1, Hb + 1)) / Lb
            T.close(ctx, row[j - 1], want * (1 + ctx60.mpf(perturb)), f"L=1000 H=30 {label} j={j}")

    T.note("commutativity: products taken in a shuffled layer order agree exactly with the "
           "Poisson-binomial mixture (the N_l are polynomials in M).")
    return T.result(
        "dense L=12, H=0..8, a in {0,1/3,1/2,9/10,1}; 3 seeded schedules L=12; "
        "recursion L in {1,2,12,50} exact; mp50 irrational a; L=1000 H=30"
    )
