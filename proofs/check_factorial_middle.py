"""Lemma 8 (factorial_middle), docs/theory.md §4.

Exact statements (checked to >= 40 digits):
  (E1) a = 1:  rho_H(1/2) = (ln 2)^(H-1)/(H-1)!  (density of U_1...U_H at 1/2).
  (E2) 0 < a < 1, z = (a/(1-a)) ln 2:
         rho_H(1/2) = a (1-a)^(H-1) L^(1)_{H-1}(-z)
                    = a (1-a)^(H-1) e^{-z} sqrt(H/z) sum_{r>=0} d_r (z/H)^(r/2) I_{r-1}(2 sqrt(Hz)),
       d_0 = 1, d_1 = 0, r d_r = H (d_0 + ... + d_{r-2})   [d_r = [s^r] (1-s)^-H e^{-Hs}]
       (an exact, convergent Bessel series; checked against the binomial sum,
       mpmath.laguerre and the Kummer form).
Asymptotic statements (rates printed):
  (A1) rho_H(1/2) = (a/(1-a)) (1-a)^H e^{-z/2} z^{-3/4} H^{1/4} e^{2 sqrt(Hz)} / (2 sqrt pi)
                    * (1 + c1/sqrt(zH) + O(1/H)),   c1 = (4 z^2 - 9)/48.
  (A2) a < 1: Q_H = rho_H(1/2) (H-1)!/(ln 2)^(H-1) -> oo (no factorial law).
  (A3) exact sandwich, all 0 < a < 1:
         1 + H(H-1)/z <= rho_H(1/2) / [a^H (ln 2)^(H-1)/(H-1)!] <= exp(H(H-1)/z),
       so the factorial law holds up to an O(1) factor iff H^2 (1-a) = O(1).
  (A4) the dominant hop count is k* ~ sqrt(Hz) (not O(1), not aH).
  (A5) finite L (discrete model, a = 1): L (M^H)[L, L/2] / ((ln 2)^(H-1)/(H-1)!)
       ~ (S1/l)^(H-1) exp((H-1)^2 S2/(2 S1^2)) with S_r = sum_{i=L/2}^{L} i^-r,
       e.g. 1.32 at L = 2048, H = 24; for H >> L it is geometric,
       (M^H)[L, j] ~ C(L-1, j-1) j^-H.
See proofs/08_factorial_middle.md.
"""

from __future__ import annotations

import math
from fractions import Fraction

import proofkit as pk

NAME = "factorial_middle"
TITLE = "middle density: factorial iff a=1; else (1-a)^H e^{2sqrt(Hz)} H^{1/4}"
H_ASYM = [10, 100, 1000, 10**4, 10**5, 10**6]
H_EXACT = [10, 100, 1000, 10**4]


def binomial_sum(ctx, H, a, l):
    """sum_{k=1}^H C(H,k) a^k (1-a)^(H-k) l^(k-1)/(k-1)!  (positive terms)."""
    p = a / (1 - a)
    term = H * a * (1 - a) ** (H - 1)
    s = ctx.mpf(0)
    for k in range(1, H + 1):
        s += term
        term *= ctx.mpf(H - k) / (k + 1) * p * l / k
    return s


def bessel_series(ctx, H, z):
    """L^(1)_{H-1}(-z) from the exact Neumann-type Bessel series (see docstring)."""
    y = 2 * ctx.sqrt(H * z)
    q = ctx.sqrt(z / H)
    d = [ctx.mpf(1), ctx.mpf(0)]
    pref = [ctx.mpf(1), ctx.mpf(1)]
    tot = ctx.besseli(1, y)
    r = 1
    while True:
        r += 1
        d.append(H * pref[r - 2] / r)
        pref.append(pref[-1] + d[r])
        t = d[r] * q**r * ctx.besseli(r - 1, y)
        tot += t
        if r > 6 and t < tot * ctx.mpf(10) ** (-ctx.dps - 3):
            break
    return ctx.exp(-z) * ctx.sqrt(H / z) * tot


def perron(ctx, H, a, z):
    return (a / (1 - a) * (1 - a) ** H * ctx.exp(-z / 2) * z ** (-ctx.mpf(3) / 4)
            * ctx.mpf(H) ** (ctx.mpf(1) / 4) * ctx.exp(2 * ctx.sqrt(H * z)) / (2 * ctx.sqrt(ctx.pi)))


def run(perturb: float = 0.0, fail_fast: bool = False) -> pk.Result:
    T = pk.Tally(NAME, TITLE, fail_fast=fail_fast)
    ctx = pk.mpctx(pk.DPS)
    one_p = 1 + ctx.mpf(perturb)
    ln2 = ctx.log(2)

    # E1: a = 1, exact rational l and 50-digit l = ln 2 via the Gamma(H,1) law
    for H in list(range(1, 9)) + [20, 50]:
        for l in (Fraction(1, 3), Fraction(7, 10)):
            bs = sum(math.comb(H, k) * Fraction(1) ** k * Fraction(0) ** (H - k) * l ** (k - 1)
                     / math.factorial(k - 1) for k in range(1, H + 1))
            T.exact(bs, l ** (H - 1) / math.factorial(H - 1) * (1 + Fraction(perturb)), f"a=1 H={H} l={l}")
        # density of X = U_1...U_H at x: f_T(ln 1/x)/x, f_T = d/dt P(H, t)
        dens = ctx.diff(lambda t: ctx.gammainc(H, 0, t, regularized=True), ln2) * 2
        T.close(ctx, dens, ln2 ** (H - 1) / ctx.factorial(H - 1) * one_p, f"a=1 gamma route H={H}")

    # E2: four routes for a < 1, H up to 1e4
    for a in (ctx.mpf(1) / 3, ctx.mpf(1) / 2, ctx.mpf(9) / 10):
        z = a / (1 - a) * ln2
        for H in H_EXACT:
            ref = binomial_sum(ctx, H, a, ln2)
            pref = a * (1 - a) ** (H - 1)
            T.close(ctx, pref * ctx.laguerre(H - 1, 1, -z) * one_p, ref, f"laguerre a={a} H={H}")
            T.close(ctx, pref * H * ctx.exp(-z) * ctx.hyp1f1(H + 1, 2, z) * one_p, ref, f"kummer a={a} H={H}")
            T.close(ctx, pref * bessel_series(ctx, H, z) * one_p, ref, f"bessel series a={a} H={H}")

    # A1: asymptotic ratio -> 1 with the predicted 1/sqrt(H) coefficient and O(1/H) remainder
    for a in (ctx.mpf(1) / 3, ctx.mpf(1) / 2, ctx.mpf(9) / 10):
        z = a / (1 - a) * ln2
        c1 = (4 * z**2 - 9) / 48
        rows, dev, rem = [], [], []
        for H in H_ASYM:
            exact = a * (1 - a) ** (H - 1) * ctx.laguerre(H - 1, 1, -z)
            R = exact / (perron(ctx, H, a, z) * one_p)
            dev.append(abs(R - 1))
            rem.append((R - 1 - c1 / ctx.sqrt(z * H)) * H)
            rows.append(f"H={H}: ratio {ctx.nstr(R, 10)}")
        T.require(all(dev[i + 1] < dev[i] / 2.5 for i in range(len(dev) - 1)),
                  f"a={a}: |ratio-1| shrinks ~ H^-1/2: {[ctx.nstr(d, 3) for d in dev]}")
        T.require(all(abs(r) < 1 + abs(c1) + z**2 for r in rem) and abs(rem[-1] - rem[-2]) < abs(rem[-2]) * 0.01,
                  f"a={a}: H*(ratio-1-c1/sqrt(zH)) bounded and converging: {[ctx.nstr(r, 5) for r in rem]}")
        if a == ctx.mpf(1) / 2:
            T.note(f"a=1/2, z=ln2: exact/asymptotic " + ", ".join(rows)
                   + f"; sqrt(zH)(ratio-1) -> c1={ctx.nstr(c1, 6)}; H*(remainder) = "
                   + ", ".join(ctx.nstr(r, 5) for r in rem))
        lograte = ctx.log(a * (1 - a) ** (H_ASYM[-1] - 1) * ctx.laguerre(H_ASYM[-1] - 1, 1, -z)) / H_ASYM[-1]
        # ln(rho)/H = ln(1-a) + 2 sqrt(z/H) + O(ln H / H)
        T.require(abs(lograte - ctx.log(1 - a)) < 3 * ctx.sqrt(z / H_ASYM[-1]),
                  f"a={a}: ln(rho)/H -> ln(1-a): {ctx.nstr(lograte, 6)} vs {ctx.nstr(ctx.log(1 - a), 6)}")

    # A2: the factorial law fails for a < 1
    for a in (ctx.mpf(1) / 2, ctx.mpf(9) / 10):
        z = a / (1 - a) * ln2
        logQ = []
        for H in H_EXACT:
            rho = a * (1 - a) ** (H - 1) * ctx.laguerre(H - 1, 1, -z)
            logQ.append(ctx.log10(rho * ctx.factorial(H - 1) / ln2 ** (H - 1)))
        T.require(all(logQ[i + 1] > logQ[i] for i in range(len(logQ) - 1)) and logQ[2] > 100,
                  f"a={a}: log10 Q_H = {[ctx.nstr(q, 5) for q in logQ]}")
        if a == ctx.mpf(1) / 2:
            T.note("a=1/2: log10[rho_H(1/2) (H-1)!/(ln2)^(H-1)] at H=10,100,1e3,1e4 = "
                   + ", ".join(ctx.nstr(q, 6) for q in logQ))

    # A3: sandwich around the all-attention path
    for a in (ctx.mpf(1) / 2, 1 - ctx.mpf(10) ** -3, 1 - ctx.mpf(10) ** -6):
        z = a / (1 - a) * ln2
        for H in (10, 30, 100):
            F = binomial_sum(ctx, H, a, ln2) / (a**H * ln2 ** (H - 1) / ctx.factorial(H - 1)) * one_p
            lo, hi = 1 + H * (H - 1) / z, ctx.exp(H * (H - 1) / z)
            T.require(lo <= F <= hi, f"sandwich a={ctx.nstr(a, 8)} H={H}: {ctx.nstr(lo, 6)} <= {ctx.nstr(F, 6)} <= {ctx.nstr(hi, 6)}")

    # A4: dominant hop count
    H, a = 10**4, ctx.mpf(1) / 2
    z = a / (1 - a) * ln2
    p = a / (1 - a)
    logt = [ctx.log(ctx.binomial(H, k)) + k * ctx.log(p) + (k - 1) * ctx.log(ln2) - ctx.loggamma(k) for k in range(1, 400)]
    kstar = 1 + max(range(len(logt)), key=lambda i: logt[i])
    root = ctx.findroot(lambda k: k * (k - 1) - (H - k + 1) * z, ctx.sqrt(H * z))
    T.require(abs(kstar - root) <= 1, f"k*={kstar} vs root {ctx.nstr(root, 6)}")
    T.note(f"a=1/2, H=1e4: dominant hop count k*={kstar} (sqrt(Hz)={ctx.nstr(ctx.sqrt(H * z), 5)}; "
           f"typical hop count aH={int(a * H)})")

    # A5: finite L, a = 1
    hz = pk.mpctx(60)
    for L, Hd in ((2048, 24), (10**6, 24)):
        j = L // 2
        m = Hd - 1
        disc = pk.chain_h_hurwitz(hz, j, L, m)[m]
        if L == 2048:
            T.close(hz, disc, pk.chain_h_dp(hz, j, L, m)[m], "finite-L routes agree")
        l = hz.log(hz.mpf(L) / j)
        ratio = disc / (l**m / hz.factorial(m))
        S1 = hz.digamma(L + 1) - hz.digamma(j)
        S2 = hz.zeta(2, j) - hz.zeta(2, L + 1)
        pred = (S1 / l) ** m * hz.exp(m * m * S2 / (2 * S1**2))
        T.require(abs(ratio / pred - 1) < 0.03, f"finite-L prediction L={L} H={Hd}")
        T.note(f"a=1, L={L}, H={Hd}: L*(M^H)[L,L/2] / ((ln2)^(H-1)/(H-1)!) = {hz.nstr(ratio, 6)} "
               f"(predicted {hz.nstr(pred, 6)})")
        if L == 2048:
            T.require(ratio > 1.25, "finite-L deviation at L=2048, H=24 is > 25%")
    L, Hd, j = 100, 1000, 50
    w = pk.chain_h_dp(hz, j, L, Hd - 1)[Hd - 1] / L
    geo = hz.binomial(L - 1, j - 1) * hz.mpf(j) ** (-Hd)
    T.require(abs(w / geo - 1) < 1e-5, "H >> L: geometric j^-H law")
    T.note(f"a=1, L=100, H=1000: (M^H)[L,50] / (C(99,49) 50^-1000) = {hz.nstr(w / geo, 10)}")
    return T.result(
        "exact: a=1 H in {1..8,20,50}; a in {1/3,1/2,9/10} x H in {10,1e2,1e3,1e4} (4 routes); "
        "asymptotic H=10..1e6; finite L in {100,2048,1e6}"
    )
