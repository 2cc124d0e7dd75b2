"""Lemma 2 (hausdorff_bernstein).

0-based n = i-1, k = j-1, K >= 1:
  (M^K)[n, k] = C(n,k) int_0^1 t^k (1-t)^(n-k) (ln 1/t)^(K-1)/(K-1)! dt
             = C(n,k) sum_r (-1)^r C(n-k, r) (k+r+1)^(-K)      (finite differences)
M D = D diag(1/(m+1)) with D[n, m] = (-1)^m C(n, m), D^2 = I, so
M^K = D diag((m+1)^-K) D: eigenvalues 1/i, moments (m+1)^-K.

Routes
  A  dense exact powers (Fractions), all 0 <= k <= n < 50, K = 1..8;
  B  the finite-difference (Hausdorff) formula, exact;
  C  eigen-decomposition identities M D = D Lambda, D^2 = I, exact (L = 50);
  D  mpmath.quad of the Bernstein integral at 50 digits on a sub-grid;
  E  mpmath.quad of the moment integrals int t^m (ln 1/t)^(K-1)/(K-1)! = (m+1)^-K.
See proofs/02_hausdorff_bernstein.md.
"""

from __future__ import annotations

import math
from fractions import Fraction

import proofkit as pk

NAME = "hausdorff_bernstein"
TITLE = "M^K = Hausdorff matrix of moments (m+1)^-K"
KMAX = 8
LMAX = 50
QUAD_PAIRS = [(0, 0), (1, 0), (1, 1), (5, 0), (5, 2), (5, 5), (11, 0), (11, 3), (11, 7), (11, 11),
              (19, 0), (19, 10), (19, 19), (49, 0), (49, 1), (49, 24), (49, 48), (49, 49)]
QUAD_K = (1, 2, 4, 8)


def finite_difference(n: int, k: int, K: int) -> Fraction:
    """C(n,k) Delta^(n-k) mu_k for mu_m = (m+1)^-K (exact)."""
    s = Fraction(0)
    for r in range(n - k + 1):
        s += Fraction((-1) ** r * math.comb(n - k, r), (k + r + 1) ** K)
    return math.comb(n, k) * s


def run(perturb: float = 0.0, fail_fast: bool = False) -> pk.Result:
    T = pk.Tally(NAME, TITLE, fail_fast=fail_fast)
    eps = Fraction(perturb)
    P = pk.cesaro_powers(LMAX, KMAX)

    # A vs B: every entry of the lower triangle for n < 20, the last row n = 49,
    # and every 7th row in between.
    rows = list(range(20)) + list(range(20, LMAX, 7)) + [LMAX - 1]
    for n in rows:
        for k in range(n + 1):
            for K in range(1, KMAX + 1):
                T.exact(P[K][n][k], finite_difference(n, k, K) * (1 + eps), f"n={n} k={k} K={K}")

    # C: eigen-structure, exact, L = 50
    D = [[Fraction((-1) ** m * math.comb(n, m)) for m in range(LMAX)] for n in range(LMAX)]
    M = P[1]
    lam = [Fraction(1, m + 1) * (1 + eps) for m in range(LMAX)]
    MD = pk.matmul([list(r) for r in M], D)
    for n in range(LMAX):
        for m in range(LMAX):
            T.exact(MD[n][m], D[n][m] * lam[m], f"MD=DL n={n} m={m}")
    DD = pk.matmul(D, D)
    T.exact(DD, pk.identity(LMAX), "D^2 = I")
    T.exact([M[i][i] for i in range(LMAX)], [Fraction(1, i + 1) for i in range(LMAX)], "diag M = 1/i")

    # D: quadrature of the Bernstein integral at 50 digits
    ctx = pk.mpctx(pk.DPS)
    for n, k in QUAD_PAIRS:
        for K in QUAD_K:
            f = lambda t, n=n, k=k, K=K: t**k * (1 - t) ** (n - k) * ctx.log(1 / t) ** (K - 1)
            val = math.comb(n, k) * ctx.quad(f, [0, 0.5, 1]) / ctx.factorial(K - 1)
            T.close(ctx, val * (1 + ctx.mpf(perturb)), P[K][n][k], f"quad n={n} k={k} K={K}")

    # E: Hausdorff moments of the weight (ln 1/t)^(K-1)/(K-1)!
    for K in (1, 2, 3, 5, 8):
        for m in (0, 1, 3, 10):
            g = lambda t, m=m, K=K: t**m * ctx.log(1 / t) ** (K - 1)
            val = ctx.quad(g, [0, 1]) / ctx.factorial(K - 1)
            T.close(ctx, val, Fraction(1, (m + 1) ** K) * (1 + eps), f"moment m={m} K={K}")

    T.note("K = 0 (M^0 = I) corresponds to the point mass at t = 1, not to a density; the "
           "integral form is for K >= 1.")
    return T.result(
        f"exact: {len(rows)} rows n<50 (all n<20), all k, K=1..8; eigen L=50; "
        f"quad {len(QUAD_PAIRS)}x{len(QUAD_K)} (n<=49), moments 20"
    )
