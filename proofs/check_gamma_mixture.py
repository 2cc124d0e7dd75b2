"""Lemma 5 (gamma_mixture).

If U_1, ..., U_k are iid Uniform(0,1) and X = U_1 ... U_k, then T = -ln X is
Gamma(k, 1) and X has density (ln 1/x)^(k-1)/(k-1)!  -- the k-hop kernel at
x_0 = 1.  In t = ln(1/x) the smooth part of rho_H is the Gamma mixture
  phi_H(t) = rho_H^smooth(e^-t) e^-t = sum_{k>=1} P(K=k) t^(k-1) e^-t/(k-1)!.

Routes (50 digits unless stated):
  A  Gamma(k,1) density as the derivative of the regularized incomplete gamma
     (mpmath.gammainc + mpmath.diff) vs the kernel pushed through x = e^-t;
  B  -ln U ~ Exp(1) and sums are convolutions: f_k(t) = int_0^t f_{k-1}(s) e^-(t-s) ds
     by quad, vs the kernel route;
  C  CDF: P(X <= x) = int_0^x kernel (quad) = Q(k, ln 1/x) (gammainc, upper
     regularized) = x sum_{r<k} (ln 1/x)^r / r!  (exact finite sum);
  D  the mixture: int_0^t0 phi_H = sum_k P(K=k) P(k, t0) (gammainc, lower
     regularized), quad of the binomial-sum density, a in the grid, H = 1..8,
     per-layer schedule; total smooth mass 1 - P(K=0);
  E  (statistical, seeded, not counted in the digits) Monte Carlo: -ln(U1 U2 U3)
     vs Gamma(3,1) (Kolmogorov-Smirnov), and the discrete hop i -> ceil(U i)
     iterated from L = 50 vs the exact row of M^3 (total variation).
See proofs/05_gamma_mixture.md.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

import proofkit as pk

NAME = "gamma_mixture"
TITLE = "hops = Uniform products; t=ln(1/x) ~ Gamma(K,1) mixture"


def kernel1(ctx, k, x):
    """k-hop kernel from x0 = 1: (ln 1/x)^(k-1)/(k-1)!."""
    return ctx.log(1 / x) ** (k - 1) / ctx.factorial(k - 1)


def run(perturb: float = 0.0, fail_fast: bool = False) -> pk.Result:
    T = pk.Tally(NAME, TITLE, fail_fast=fail_fast)
    ctx = pk.mpctx(pk.DPS)
    one_p = 1 + ctx.mpf(perturb)

    # A: density via d/dt P(k, t)
    for k in range(1, 9):
        for t in (ctx.mpf(1) / 10, ctx.mpf(1), ctx.mpf(5) / 2, ctx.mpf(7)):
            via_kernel = kernel1(ctx, k, ctx.exp(-t)) * ctx.exp(-t) * one_p
            via_cdf = ctx.diff(lambda s: ctx.gammainc(k, 0, s, regularized=True), t)
            T.close(ctx, via_kernel, via_cdf, f"pdf k={k} t={t}")

    # B: convolution recursion of Exp(1) densities
    for k in range(2, 9):
        for t in (ctx.mpf(1), ctx.mpf(3)):
            conv = ctx.quad(lambda s: kernel1(ctx, k - 1, ctx.exp(-s)) * ctx.exp(-s) * ctx.exp(-(t - s)), [0, t])
            T.close(ctx, conv, kernel1(ctx, k, ctx.exp(-t)) * ctx.exp(-t) * one_p, f"conv k={k} t={t}")

    # C: CDF of the product of k uniforms
    for k in range(1, 9):
        for x in (ctx.mpf(1) / 2, ctx.mpf(1) / 10, ctx.mpf(9) / 10):
            l = ctx.log(1 / x)
            quad = ctx.quad(lambda s: kernel1(ctx, k, s), [0, x])
            upper = ctx.gammainc(k, l, ctx.inf, regularized=True)
            finite = x * sum(l**r / ctx.factorial(r) for r in range(k))
            T.close(ctx, quad, finite * one_p, f"cdf quad k={k} x={x}")
            T.close(ctx, upper, finite * one_p, f"cdf gammainc k={k} x={x}")

    # D: the hop mixture in log-position
    cases = []
    for a in pk.A_GRID[1:]:
        for H in (1, 3, 8):
            cases.append((f"a={a} H={H}", [pk.to_mpf(ctx, w) for w in pk.binom_pmf(H, a)]))
    cases.append(("schedule0 H=8", [pk.to_mpf(ctx, w) for w in pk.poisson_binom_pmf(pk.SCHEDULES[0])]))
    for label, pmf in cases:
        # binomial-sum density of docs/theory.md §3, written in t = ln(1/x):
        # phi(t) = rho_smooth(e^-t) e^-t = e^-t sum_k P(K=k) t^(k-1)/(k-1)!
        coef = [pmf[k] / ctx.factorial(k - 1) for k in range(1, len(pmf))]

        def phi(t, coef=coef):
            acc = ctx.mpf(0)
            for c in reversed(coef):
                acc = acc * t + c
            return acc * ctx.exp(-t)

        for t0 in (ctx.mpf(1) / 2, ctx.mpf(3)):
            quad = ctx.quad(phi, [0, t0])
            mix = sum(pmf[k] * ctx.gammainc(k, 0, t0, regularized=True) for k in range(1, len(pmf)))
            T.close(ctx, quad, mix * one_p, f"mixture cdf {label} t0={t0}")
        mass = ctx.quad(phi, [0, 240])  # tail < e^-240 * t^7 ~ 1e-88
        T.close(ctx, mass, (1 - pmf[0]) * one_p, f"smooth mass {label}")

    # E: Monte Carlo sanity checks (seeded; statistical, outside the digit count)
    rng = np.random.default_rng(20260310)
    n = 200_000
    tt = np.sort(-np.log(rng.random((n, 3))).sum(axis=1))
    cdf = -np.expm1(-tt) - np.exp(-tt) * (tt + tt**2 / 2)  # Gamma(3,1) CDF
    ks = max(np.max(np.arange(1, n + 1) / n - cdf), np.max(cdf - np.arange(n) / n))
    T.require(ks * math.sqrt(n) < 1.95, f"MC KS sqrt(n)*D = {ks * math.sqrt(n):.3f} (0.1% level 1.95)")
    pos = np.full(n, 50)
    for _ in range(3):
        pos = np.ceil(rng.random(n) * pos).astype(int)
        pos = np.maximum(pos, 1)
    emp = np.bincount(pos, minlength=51)[1:] / n
    exact = np.array([float(v) for v in pk.cesaro_powers(50, 8)[3][49]])
    tv = 0.5 * np.abs(emp - exact).sum()
    T.require(tv < 0.01, f"discrete hop chain TV distance {tv:.4f}")
    T.note(f"Monte Carlo (n={n}, seeded): KS sqrt(n)D={ks * math.sqrt(n):.3f}; "
           f"ceil(U i) chain from L=50, 3 hops vs row of M^3: TV={tv:.4f}")
    return T.result("k=1..8 pdf/conv/CDF at 4/2/3 points; mixture a in {1/3,1/2,9/10,1} x H in {1,3,8} + schedule")
