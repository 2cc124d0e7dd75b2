"""Lemma 1 (chain_sum): (M^K)[L, j] = (1/L) h_{K-1}(1/j, ..., 1/L), K >= 1.

Routes
  A  dense exact powers of the Cesàro matrix (Fractions), L <= 50, K <= 8;
  B  h_{K-1} from Newton's identities on exact power sums (Fractions);
  C  K = 2: (H_L - H_{j-1}) / L with exact harmonic numbers, and with
     mpmath's harmonic() at 50 digits;
  D  h_{K-1} from Hurwitz-zeta/digamma power sums at 50 digits, against A
     (L <= 50) and against the one-variable-at-a-time recursion (L = 100, 1000).
See proofs/01_chain_sum.md.
"""

from __future__ import annotations

from fractions import Fraction

import proofkit as pk

NAME = "chain_sum"
TITLE = "(M^K)[L,j] = h_{K-1}(1/j..1/L)/L"
KMAX = 8
LMAX = 50
MP_L = list(range(1, 13)) + [20, 50]


def run(perturb: float = 0.0, fail_fast: bool = False) -> pk.Result:
    T = pk.Tally(NAME, TITLE, fail_fast=fail_fast)
    eps = Fraction(perturb)
    ctx = pk.mpctx(60)  # Hurwitz power sums cancel a few digits when j ~ L
    cmp_ctx = pk.mpctx(pk.DPS)
    P = pk.cesaro_powers(LMAX, KMAX)

    # A vs B over every 1 <= j <= L <= 50, K = 1..8 (and the zeros above the diagonal)
    for L in range(1, LMAX + 1):
        for j in range(1, L + 1):
            h = pk.h_from_power_sums(pk.power_sums_exact(j, L, KMAX - 1), KMAX - 1)
            for K in range(1, KMAX + 1):
                want = h[K - 1] / L * (1 + eps)
                T.exact(P[K][L - 1][j - 1], want, f"K={K} L={L} j={j}")
        for K in range(1, KMAX + 1):
            T.exact(all(P[K][L - 1][jj] == 0 for jj in range(L, LMAX)), True, f"upper zeros K={K} L={L}")

    # C: K = 2 special case
    Hn = [Fraction(0)]
    for n in range(1, LMAX + 1):
        Hn.append(Hn[-1] + Fraction(1, n))
    for L in range(1, LMAX + 1):
        for j in range(1, L + 1):
            T.exact(P[2][L - 1][j - 1], (Hn[L] - Hn[j - 1]) / L * (1 + eps), f"K=2 harmonic L={L} j={j}")
    for L in (50, 1000, 10**6):
        for j in sorted({1, 2, max(1, L // 3), L // 2 or 1, L}):
            with_harm = (ctx.harmonic(L) - ctx.harmonic(j - 1)) / L * (1 + ctx.mpf(perturb))
            hh = pk.chain_h_hurwitz(ctx, j, L, 1)[1] / L
            T.close(cmp_ctx, hh, with_harm, f"K=2 mp L={L} j={j}")

    # D: Hurwitz route at 50 digits vs the exact matrix entries
    for L in MP_L:
        for j in sorted({1, min(2, L), (L + 1) // 2, max(1, L - 1), L}):
            h = pk.chain_h_hurwitz(ctx, j, L, KMAX - 1)
            for K in range(1, KMAX + 1):
                want = pk.to_mpf(ctx, P[K][L - 1][j - 1])
                T.close(cmp_ctx, h[K - 1] / L * (1 + ctx.mpf(perturb)), want, f"hurwitz K={K} L={L} j={j}")
    # D at large L: Hurwitz route vs explicit recursion (independent algorithms)
    for L in (100, 1000):
        for j in (1, 2, L // 10, L // 2, L - 1, L):
            hz = pk.chain_h_hurwitz(ctx, j, L, KMAX - 1)
            hd = pk.chain_h_dp(ctx, j, L, KMAX - 1)
            for K in range(1, KMAX + 1):
                T.close(cmp_ctx, hz[K - 1] * (1 + ctx.mpf(perturb)), hd[K - 1], f"large-L K={K} L={L} j={j}")

    T.note("K = 0 is excluded: M^0 = I while h_{-1} = 0 (the formula is for K >= 1).")
    return T.result("L=1..50 all j, K=1..8 exact; mp50 L in {1..12,20,50,100,1000}, K=2 to L=1e6")
