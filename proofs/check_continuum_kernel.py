"""Lemma 4 (continuum_kernel).

(i)  For (Mf)(x) = (1/x) int_0^x f, the k-th power is the integral operator with
     kernel K_k(x, t) = (1/x) (ln(x/t))^(k-1)/(k-1)!  on 0 < t < x  (k >= 1).
(ii) With x = j/L fixed and L -> oo:
       L (M^K)[L, j] = g_{K-1}(l) + c_K(x)/L + O(L^-2),   l = ln(1/x),  g_m(l) = l^m/m!,
       c_K(x) = [ (1/x + 1) g_{K-2}(l) + (1/x - 1) g_{K-3}(l) ] / 2    (g_m = 0 for m < 0).

Routes for (i) (all mpmath at 50 digits):
  A  the induction step  int_t^x (1/s) g_{k-1}(ln(s/t)) ds = g_k(ln(x/t))  by quad;
  B  eigenfunctions: K_k applied to t^m gives x^m/(m+1)^k  (quad vs closed form);
  C  a non-eigenfunction f(t) = e^{ct}: kernel quad vs the series
     sum_m (cx)^m/(m!(m+1)^k), and for k = 2 vs the iterated average
     (1/x) int_0^x (e^{cs}-1)/(cs) ds.
Route for (ii): exact L (M^K)[L, xL] from Hurwitz power sums (60 digits,
cross-checked against the explicit recursion in chain_sum), L = 10^2..10^6;
the error times L must approach c_K(x) and the remainder must shrink like 1/L.
See proofs/04_continuum_kernel.md.
"""

from __future__ import annotations

from fractions import Fraction

import proofkit as pk

NAME = "continuum_kernel"
TITLE = "M^k kernel (1/x)ln(x/t)^(k-1)/(k-1)!; L M^K[L,xL] -> g_{K-1}"
KS = range(1, 9)
LS = [10**p for p in range(2, 7)]
XS = (Fraction(1, 2), Fraction(1, 10))
KCONV = (2, 3, 5, 8)


def g(ctx, m, l):
    return l**m / ctx.factorial(m) if m >= 0 else ctx.mpf(0)


def c_first_order(ctx, K, x):
    l = ctx.log(1 / x)
    return ((1 / x + 1) * g(ctx, K - 2, l) + (1 / x - 1) * g(ctx, K - 3, l)) / 2


def run(perturb: float = 0.0, fail_fast: bool = False) -> pk.Result:
    T = pk.Tally(NAME, TITLE, fail_fast=fail_fast)
    ctx = pk.mpctx(pk.DPS)
    one_p = 1 + ctx.mpf(perturb)

    # A: induction step
    for k in KS:
        for t0, x0 in ((ctx.mpf(1) / 10, ctx.mpf(1)), (ctx.mpf(3) / 10, ctx.mpf(7) / 10)):
            val = ctx.quad(lambda s: g(ctx, k - 1, ctx.log(s / t0)) / s, [t0, x0])
            T.close(ctx, val, g(ctx, k, ctx.log(x0 / t0)) * one_p, f"step k={k} t={t0} x={x0}")

    # B: eigenfunctions t^m
    x = ctx.mpf(1) / 2
    for k in KS:
        for m in (ctx.mpf(0), ctx.mpf(1) / 2, ctx.mpf(3)):
            val = ctx.quad(lambda t: g(ctx, k - 1, ctx.log(x / t)) * t**m, [0, x]) / x
            T.close(ctx, val, x**m / (m + 1) ** k * one_p, f"eigen k={k} m={m}")

    # C: f(t) = exp(c t)
    def series(c, x, k):
        s, term, m = ctx.mpf(0), ctx.mpf(1), 0
        while True:
            add = term / (m + 1) ** k
            s += add
            if m > 5 and abs(add) < abs(s) * ctx.mpf(10) ** (-ctx.dps - 5):
                return s
            m += 1
            term *= c * x / m

    for c in (ctx.mpf(2), ctx.mpf(-3)):
        for x in (ctx.mpf(1) / 2, ctx.mpf(1)):
            for k in (1, 2, 3, 5, 8):
                kern = ctx.quad(lambda t: g(ctx, k - 1, ctx.log(x / t)) * ctx.exp(c * t), [0, x]) / x
                T.close(ctx, kern, series(c, x, k) * one_p, f"exp c={c} x={x} k={k}")
                if k == 2:
                    iterated = ctx.quad(lambda s: ctx.expm1(c * s) / (c * s), [0, x]) / x
                    T.close(ctx, kern, iterated * one_p, f"iterated c={c} x={x}")

    # (ii) discrete -> continuum, with the first-order coefficient
    hz = pk.mpctx(60)
    for x in XS:
        xm = pk.to_mpf(hz, x)
        l = hz.log(1 / xm)
        for K in KCONV:
            cK = c_first_order(hz, K, xm)
            f = g(hz, K - 1, l) * one_p
            rem = []
            rows = []
            for L in LS:
                j = int(x * L)
                D = pk.chain_h_hurwitz(hz, j, L, K - 1)[K - 1]  # = L (M^K)[L, j]
                err = D - f
                rem.append(L * err - cK)
                rows.append(f"L=1e{len(str(L)) - 1}: err {hz.nstr(err, 4)}, L*err {hz.nstr(L * err, 8)}")
            ratios = [rem[i + 1] / rem[i] for i in range(len(rem) - 1)]
            # O(1/L) remainder: each decade shrinks it ~10x (allow 6x..16x)
            ok = all(hz.mpf(1) / 16 < r < hz.mpf(1) / 6 for r in ratios[1:])
            T.require(ok, f"rate x={x} K={K}: remainder ratios {[hz.nstr(r, 3) for r in ratios]}")
            T.require(abs(rem[-1]) < 1e-4 * (1 + abs(cK)), f"first-order coefficient x={x} K={K}")
            if K in (2, 5):
                T.note(f"x={x} K={K}: c_K={hz.nstr(cK, 8)}; " + "; ".join(rows)
                       + f"; (L*err - c_K) per decade x{[hz.nstr(r, 3) for r in ratios]}")
    return T.result(
        "kernel k=1..8 (step, eigen m in {0,1/2,3}, exp c in {2,-3}); "
        "limit L=1e2..1e6, x in {1/2,1/10}, K in {2,3,5,8}"
    )
