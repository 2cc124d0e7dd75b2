"""Shared machinery for the proof checks in ``proofs/``.

Deliberately self-contained: nothing here imports ``lostmid_jax``, so the
library's own tests can use these checks as an independent route.

Conventions
-----------
* Exact arithmetic uses :class:`fractions.Fraction`; exact comparisons must be
  equalities.
* Floating checks use a *local* :class:`mpmath.MPContext` (default 50 digits);
  mpmath's global ``mp`` context is never touched.  A floating comparison
  passes when the relative deviation is at most ``10**-TOL_DIGITS`` (40 digits).
* Every check accepts ``perturb``: the closed form under test is multiplied by
  ``1 + perturb`` before comparison.  ``perturb=0`` is the real check; a tiny
  non-zero value is the negative control (it must make the check fail).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import mpmath

DPS = 50  # working precision of the floating routes
TOL_DIGITS = 40  # required agreement

__all__ = [
    "DPS",
    "TOL_DIGITS",
    "CheckFailed",
    "Result",
    "Tally",
    "mpctx",
    "to_mpf",
    "cesaro_powers",
    "matmul",
    "identity",
    "binom_pmf",
    "poisson_binom_pmf",
    "suffix_recursion",
    "power_sums_exact",
    "h_from_power_sums",
    "chain_h_hurwitz",
    "chain_h_dp",
    "A_GRID",
    "SCHEDULES",
]

# a-grid of the brief (exact rationals) and seeded per-layer schedules.
A_GRID = (Fraction(0), Fraction(1, 3), Fraction(1, 2), Fraction(9, 10), Fraction(1))


def _make_schedules():
    import random

    rng = random.Random(20260310)
    out = []
    for _ in range(3):
        out.append(tuple(Fraction(rng.randint(0, 100), 100) for _ in range(8)))
    return tuple(out)


SCHEDULES = _make_schedules()


def mpctx(dps: int = DPS) -> mpmath.MPContext:
    """A private mpmath context (never the global one)."""
    ctx = mpmath.MPContext()
    ctx.dps = dps
    return ctx


def to_mpf(ctx, q) -> "mpmath.mpf":
    """Exact rational -> mpf in ``ctx`` (one rounding)."""
    if isinstance(q, Fraction):
        return ctx.mpf(q.numerator) / q.denominator
    return ctx.mpf(q)


_CMP = mpctx(100)  # comparison context (wider than any working precision)


class CheckFailed(AssertionError):
    """Raised on the first failure when a check runs with ``fail_fast``."""


# ---------------------------------------------------------------------------
# result bookkeeping
# ---------------------------------------------------------------------------
@dataclass
class Result:
    name: str
    title: str
    grid: str
    exact_cases: int
    float_cases: int
    limit_cases: int
    worst_rel: float
    worst_abs: float
    digits: float  # digits agreed in the worst floating comparison (inf: none/bit-exact)
    passed: bool
    notes: list = field(default_factory=list)
    failures: list = field(default_factory=list)
    seconds: float = 0.0

    def line(self) -> str:
        status = "PASS" if self.passed else "FAIL"
        dig = "exact" if math.isinf(self.digits) else f"{self.digits:.1f}"
        return (
            f"[{status}] {self.name:<20s} grid: {self.grid} | "
            f"exact {self.exact_cases}, mp{DPS} {self.float_cases}, limit {self.limit_cases} | "
            f"worst rel {self.worst_rel:.2e}, abs {self.worst_abs:.2e} | "
            f"digits {dig} | {self.seconds:.1f}s"
        )


class Tally:
    """Collects comparisons for one lemma."""

    def __init__(self, name: str, title: str, *, fail_fast: bool = False):
        self.name = name
        self.title = title
        self.fail_fast = fail_fast
        self.exact_cases = 0
        self.float_cases = 0
        self.limit_cases = 0
        self.worst_rel = 0.0
        self.worst_abs = 0.0
        self.notes: list[str] = []
        self.failures: list[str] = []
        self._t0 = time.perf_counter()

    # -- recording -----------------------------------------------------------
    def _fail(self, msg: str) -> None:
        self.failures.append(msg)
        if self.fail_fast:
            raise CheckFailed(f"{self.name}: {msg}")

    def exact(self, got, want, label: str) -> None:
        """Exact (rational) equality."""
        self.exact_cases += 1
        if got != want:
            self._fail(f"exact mismatch at {label}: {got} != {want}")

    def close(self, ctx, got, want, label: str, digits: int = TOL_DIGITS) -> None:
        """Relative agreement to ``digits`` digits (absolute when want == 0).

        ``ctx`` is accepted for symmetry with the callers; values may come from
        any mpmath context (or be Fractions / ints)."""
        self.float_cases += 1
        # Measure the deviation in a wider context so that rounding both sides
        # to the working precision cannot hide (or create) a difference.
        ctx = _CMP
        got = to_mpf(ctx, got)
        want = to_mpf(ctx, want)
        dev = abs(got - want)
        rel = dev / abs(want) if want != 0 else dev
        self.worst_abs = max(self.worst_abs, float(dev))
        self.worst_rel = max(self.worst_rel, float(rel))
        if not rel <= ctx.mpf(10) ** (-digits):
            self._fail(
                f"{label}: rel dev {ctx.nstr(rel, 3)} > 1e-{digits} "
                f"(got {ctx.nstr(got, 15)}, want {ctx.nstr(want, 15)})"
            )

    def require(self, cond: bool, label: str) -> None:
        """A limit / rate / inequality statement."""
        self.limit_cases += 1
        if not cond:
            self._fail(f"limit/rate check failed: {label}")

    def note(self, text: str) -> None:
        self.notes.append(text)

    def result(self, grid: str) -> Result:
        digits = -math.log10(self.worst_rel) if self.worst_rel > 0 else math.inf
        return Result(
            name=self.name,
            title=self.title,
            grid=grid,
            exact_cases=self.exact_cases,
            float_cases=self.float_cases,
            limit_cases=self.limit_cases,
            worst_rel=self.worst_rel,
            worst_abs=self.worst_abs,
            digits=digits,
            passed=not self.failures,
            notes=list(self.notes),
            failures=list(self.failures),
            seconds=time.perf_counter() - self._t0,
        )


# ---------------------------------------------------------------------------
# exact linear algebra on small dense matrices (lists of lists of Fraction)
# ---------------------------------------------------------------------------
def identity(n: int):
    return [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]


def matmul(A, B):
    """Dense product; zero entries of A are skipped (no structure assumed)."""
    n, m, p = len(A), len(B), len(B[0])
    out = [[Fraction(0)] * p for _ in range(n)]
    for i in range(n):
        Ai = A[i]
        row = out[i]
        for l in range(m):
            a = Ai[l]
            if a == 0:
                continue
            Bl = B[l]
            for j in range(p):
                b = Bl[j]
                if b:
                    row[j] += a * b
    return out


def cesaro_matrix(L: int):
    """M[i, j] = 1/i for 1 <= j <= i (1-based), as Fractions."""
    return [[Fraction(1, i + 1) if j <= i else Fraction(0) for j in range(L)] for i in range(L)]


@lru_cache(maxsize=None)
def cesaro_powers(L: int = 50, kmax: int = 8):
    """(M^0, ..., M^kmax) for the L x L Cesàro matrix, exact, by dense products.

    Computed as integer matrix powers: M = C / D with D = lcm(1..L) and
    C[i, j] = D / i, so M^K = C^K / D^K exactly (plain dense integer products,
    no structure assumed), then entries are returned as reduced Fractions.

    Because M is lower triangular with entries independent of the size, the
    leading L' x L' block of M_L^K equals M_{L'}^K; one L = 50 computation
    therefore covers every L' <= 50.
    """
    D = math.lcm(*range(1, L + 1))
    C = [[D // (i + 1) if j <= i else 0 for j in range(L)] for i in range(L)]
    out = [tuple(tuple(Fraction(int(i == j)) for j in range(L)) for i in range(L))]
    Ck = [[int(i == j) for j in range(L)] for i in range(L)]
    Dk = 1
    for _ in range(kmax):
        Ck = [[sum(Ck[i][l] * C[l][j] for l in range(L)) for j in range(L)] for i in range(L)]
        Dk *= D
        out.append(tuple(tuple(Fraction(v, Dk) for v in row) for row in Ck))
    return tuple(out)


# ---------------------------------------------------------------------------
# hop-count distributions
# ---------------------------------------------------------------------------
def binom_pmf(H: int, a):
    """P(K = k), K ~ Binomial(H, a); works for Fraction or mpf ``a``."""
    return [math.comb(H, k) * a**k * (1 - a) ** (H - k) for k in range(H + 1)]


def poisson_binom_pmf(avec):
    """P(K = k) for K = sum of independent Bernoulli(a_l) (coefficient DP)."""
    p = [1]
    for a in avec:
        q = [0] * (len(p) + 1)
        for k, v in enumerate(p):
            q[k] += v * (1 - a)
            q[k + 1] += v * a
        p = q
    return p


def suffix_recursion(L: int, avec, one=Fraction(1)):
    """Last row of N_H ... N_1 by the O(H L) suffix-sum recursion of docs/theory.md §2.

    r <- e_L; r <- (1 - a) r + a * suffix_cumsum(r_i / i).  0-based list of length L.
    Works with Fraction or mpf (pass ``one`` of the wanted type).
    """
    zero = one - one
    r = [zero] * L
    r[L - 1] = one
    for a in avec:
        s = zero
        out = [zero] * L
        for i in range(L - 1, -1, -1):
            s += r[i] / (i + 1)
            out[i] = (1 - a) * r[i] + a * s
        r = out
    return r


# ---------------------------------------------------------------------------
# complete homogeneous symmetric polynomials of 1/j, ..., 1/L
# ---------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _prefix_power_sums(Lmax: int, rmax: int):
    """P[r][n] = sum_{i=1}^{n} i^-r, exact."""
    P = [[Fraction(0)] * (Lmax + 1) for _ in range(rmax + 1)]
    for r in range(1, rmax + 1):
        acc = Fraction(0)
        for n in range(1, Lmax + 1):
            acc += Fraction(1, n**r)
            P[r][n] = acc
    return P


def power_sums_exact(j: int, L: int, rmax: int, Lmax: int = 50):
    """[p_1..p_rmax] with p_r = sum_{i=j}^{L} i^-r (exact, L <= Lmax)."""
    P = _prefix_power_sums(Lmax, rmax)
    return [P[r][L] - P[r][j - 1] for r in range(1, rmax + 1)]


def h_from_power_sums(p, mmax: int, zero=Fraction(0), one=Fraction(1)):
    """Newton's identities q h_q = sum_{r=1}^{q} p_r h_{q-r};  returns h_0..h_mmax."""
    h = [one]
    for q in range(1, mmax + 1):
        acc = zero
        for r in range(1, q + 1):
            acc += p[r - 1] * h[q - r]
        h.append(acc / q)
    return h


@lru_cache(maxsize=4096)
def _hurwitz(dps: int, r: int, n: int):
    ctx = mpctx(dps)
    return ctx.digamma(n) if r == 1 else ctx.zeta(r, n)


def chain_h_hurwitz(ctx, j: int, L: int, mmax: int):
    """h_0..h_mmax of (1/j, ..., 1/L) from Hurwitz-zeta / digamma power sums.

    p_1 = psi(L+1) - psi(j),  p_r = zeta(r, j) - zeta(r, L+1)  (r >= 2).
    Cost is independent of L, so it reaches L = 10^6 and beyond.
    """
    dps = ctx.dps
    p = [ctx.mpf(_hurwitz(dps, 1, L + 1)) - _hurwitz(dps, 1, j)]
    for r in range(2, mmax + 1):
        p.append(ctx.mpf(_hurwitz(dps, r, j)) - _hurwitz(dps, r, L + 1))
    return h_from_power_sums(p, mmax, zero=ctx.mpf(0), one=ctx.mpf(1))


def chain_h_dp(ctx, j: int, L: int, mmax: int):
    """h_0..h_mmax of (1/j, ..., 1/L) by adding one variable at a time:
    h_q(x_1..x_n) = h_q(x_1..x_{n-1}) + x_n h_{q-1}(x_1..x_n)."""
    h = [ctx.mpf(1)] + [ctx.mpf(0)] * mmax
    for i in range(j, L + 1):
        x = ctx.mpf(1) / i
        for q in range(1, mmax + 1):
            h[q] += x * h[q - 1]
    return h
