"""The arithmetic a structured row operator runs in: float64, log space, or a Field.

The prior operators in :mod:`.prior_ops` are written once against this small
interface (a commutative semiring of positive numbers plus the two ALiBi
kernels), so the same code gives the float64 row, the log-space row and the
exact / mpmath / arb rows. Every operation adds or multiplies nonnegative
terms: there is no subtraction, so no cancellation in any backend.

Arrays are numpy arrays [..., L]: float64 for :class:`FloatOps` and
:class:`LogOps` (which holds log w, with -inf for exact zeros), ``object``
for :class:`FieldOps`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from ._fields import Field


SHIFT_LIMIT = 1e8
"""Largest m (L - 1) for which :meth:`LogOps.geometric_suffix` uses the one-pass shifted scan."""


class FloatOps:
    """Plain float64 arithmetic."""

    zero, one = 0.0, 1.0

    def full(self, n: int, value) -> np.ndarray:
        return np.full(n, value, dtype=np.float64)

    def unit(self, n: int) -> np.ndarray:
        """The row e_L: zeros and a final one."""
        out = self.full(n, self.zero)
        out[-1] = self.one
        return out

    def param(self, value) -> float:
        """A parameter (an ALiBi slope) as a plain number of this arithmetic, not a log."""
        return float(value)

    def recip(self, counts: np.ndarray) -> np.ndarray:
        """1 / c for positive integer counts c."""
        return 1.0 / np.asarray(counts, dtype=np.float64)

    def add(self, x, y):
        return x + y

    def mul(self, x, y):
        return x * y

    def accumulate(self, x: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.cumsum(x, axis=axis)

    def total(self, x: np.ndarray):
        return x.sum()

    def mix(self, row: np.ndarray, new: np.ndarray, a) -> np.ndarray:
        """(1 - a) row + a new, for 0 < a < 1."""
        a = float(a)
        return (1.0 - a) * row + a * new

    def pow2(self, exponent) -> float:
        return 2.0 ** float(exponent)

    def scalar(self, value):
        """A nonnegative real (a head weight) as a number of this arithmetic."""
        return float(value)

    def exp(self, x):
        """e^x for plain parameters x (a number or array from :meth:`param`)."""
        return np.exp(np.asarray(x, dtype=np.float64))

    def expm1(self, x):
        """e^x - 1 for a plain parameter x >= 0."""
        return float(np.expm1(float(x)))

    def one_minus_exp(self, x):
        """1 - e^x for a plain parameter x < 0."""
        return -math.expm1(float(x))

    def inv(self, x: np.ndarray) -> np.ndarray:
        """1 / x elementwise for positive numbers of this arithmetic."""
        return 1.0 / x

    def sub(self, x, y):
        """x - y for x >= y >= 0 (the only subtraction: a negative self bonus)."""
        return x - y

    def geometric_recip_norm(self, m: float, length: int) -> np.ndarray:
        """1 / Z_i, Z_i = sum_{d<i} e^(-m d) = (1 - e^(-m i)) / (1 - e^(-m)), i = 1..L."""
        i = np.arange(1, length + 1, dtype=np.float64)
        with np.errstate(over="ignore"):  # m i = inf for a huge slope: e^(-m i) = 0, Z_i = 1 / (1 - e^(-m))
            return 1.0 / i if m == 0 else np.expm1(-m) / np.expm1(-m * i)

    def geometric_suffix(self, u: np.ndarray, m: float) -> np.ndarray:
        """s_j = sum_{i >= j} u_i e^(-m (i - j)), by the reverse scan s_j = u_j + e^(-m) s_{j+1}."""
        from scipy import signal  # ~0.6 s to import; only ALiBi rows need it

        return signal.lfilter([1.0], [1.0, -np.exp(-m)], u[::-1])[::-1]

    def geometric_suffix_rows(self, x: np.ndarray, m: float) -> np.ndarray:
        """:meth:`geometric_suffix` of each row of x [B, w], one call."""
        from scipy import signal

        return signal.lfilter([1.0], [1.0, -np.exp(-m)], x[:, ::-1], axis=1)[:, ::-1]

    def geometric_powers(self, m: float, n: int) -> np.ndarray:
        """e^(-m k) for k = 0..n-1."""
        with np.errstate(over="ignore"):
            return np.exp(-m * np.arange(n, dtype=np.float64))


class LogOps(FloatOps):
    """float64 arithmetic on natural logs: never underflows.

    Sums are ``logaddexp``; each loses ~|log w| * 1e-16 absolute, so the
    relative accuracy is ~1e-12 for entries far below 1.
    """

    zero, one = -np.inf, 0.0

    def recip(self, counts: np.ndarray) -> np.ndarray:
        return -np.log(np.asarray(counts, dtype=np.float64))

    def add(self, x, y):
        return np.logaddexp(x, y)

    def mul(self, x, y):
        return x + y

    def accumulate(self, x: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.logaddexp.accumulate(x, axis=axis)

    def total(self, x: np.ndarray):
        return float(special.logsumexp(x)) if np.any(x > -np.inf) else -np.inf

    def mix(self, row: np.ndarray, new: np.ndarray, a) -> np.ndarray:
        a = float(a)
        return np.logaddexp(np.log1p(-a) + row, np.log(a) + new)

    def scalar(self, value):
        return math.log(value) if value > 0 else -math.inf

    def exp(self, x):
        return np.asarray(x, dtype=np.float64)

    def expm1(self, x):
        x = float(x)
        return -math.inf if x == 0 else x + math.log(-math.expm1(-x))

    def one_minus_exp(self, x):
        return math.log(-math.expm1(float(x)))

    def inv(self, x: np.ndarray) -> np.ndarray:
        return -x

    def sub(self, x, y):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(y == -np.inf, x, x + np.log1p(-np.exp(y - x)))

    def geometric_recip_norm(self, m: float, length: int) -> np.ndarray:
        i = np.arange(1, length + 1, dtype=np.float64)
        with np.errstate(over="ignore"):
            return -np.log(i) if m == 0 else np.log(-np.expm1(-m)) - np.log(-np.expm1(-m * i))

    def geometric_suffix(self, u: np.ndarray, m: float) -> np.ndarray:
        """log s_j = log sum_{i >= j} exp(u_i - m (i - j)).

        For m (L - 1) <= :data:`SHIFT_LIMIT`: m j + log sum_{i >= j} exp(u_i - m i),
        one O(L) scan whose shift m j costs ~m L 1e-16 absolute. Beyond (a
        steep head, e.g. m = 1e308, which the shift would turn into inf - inf):
        a doubling scan, s_j <- logaddexp(s_j, s_{j+d} - m d) for d = 1, 2,
        4, ..., in O(L log L), which never forms a large shift (m d = inf just
        drops the far terms, as e^(-m d) = 0 does).
        """
        if m * (u.size - 1) <= SHIFT_LIMIT:
            shift = m * np.arange(u.size, dtype=np.float64)
            return shift + np.logaddexp.accumulate((u - shift)[::-1])[::-1]
        return self._doubling_suffix(u, m)

    @staticmethod
    def _doubling_suffix(u: np.ndarray, m: float) -> np.ndarray:
        s, d = np.array(u, dtype=np.float64), 1
        with np.errstate(over="ignore"):
            while d < s.size:
                nxt = s.copy()
                nxt[:-d] = np.logaddexp(s[:-d], s[d:] - m * d)
                s, d = nxt, 2 * d
        return s

    def geometric_suffix_rows(self, x: np.ndarray, m: float) -> np.ndarray:
        width = x.shape[1]
        if m * (width - 1) <= SHIFT_LIMIT:
            shift = m * np.arange(width, dtype=np.float64)
            return shift + np.logaddexp.accumulate((x - shift)[:, ::-1], axis=1)[:, ::-1]
        return np.stack([self._doubling_suffix(row, m) for row in x])

    def geometric_powers(self, m: float, n: int) -> np.ndarray:
        return -m * np.arange(n, dtype=np.float64)


class FieldOps:
    """Elementwise arithmetic on ``object`` arrays of a :class:`Field`'s numbers."""

    def __init__(self, field: Field):
        self.field = field
        self.zero, self.one = field.zero, field.one

    def full(self, n: int, value) -> np.ndarray:
        out = np.empty(n, dtype=object)
        out[:] = [value] * n
        return out

    unit = FloatOps.unit

    def param(self, value):
        return self.field.convert(value)

    def recip(self, counts: np.ndarray) -> np.ndarray:
        one = self.field.one
        out = np.empty(np.shape(counts), dtype=object)
        out.flat[:] = [one / int(c) for c in np.ravel(counts)]
        return out

    def add(self, x, y):
        return x + y

    def mul(self, x, y):
        return x * y

    def accumulate(self, x: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.add.accumulate(x, axis=axis)

    def total(self, x: np.ndarray):
        s = self.zero
        for value in x:
            s = s + value
        return s

    def mix(self, row: np.ndarray, new: np.ndarray, a) -> np.ndarray:
        """(1 - a) row + a new, each product scalar-first (arb's radius bounds depend on the order)."""
        a = self.field.convert(a)
        return np.multiply(self.field.one - a, row) + np.multiply(a, new)

    def pow2(self, exponent):
        return self.field.pow2(exponent)

    def scalar(self, value):
        return self.field.convert(value)

    def exp(self, x):
        if isinstance(x, np.ndarray):
            out = np.empty(x.shape, dtype=object)
            out.flat[:] = [self.field.exp(v) for v in x.flat]
            return out
        return self.field.exp(x)

    def expm1(self, x):
        return self.field.exp(x) - self.field.one

    def one_minus_exp(self, x):
        return self.field.one - self.field.exp(x)

    def inv(self, x: np.ndarray) -> np.ndarray:
        one = self.field.one
        out = np.empty(x.shape, dtype=object)
        out.flat[:] = [one / v for v in x.flat]
        return out

    def sub(self, x, y):
        return x - y

    def geometric_recip_norm(self, m, length: int) -> np.ndarray:
        q, one = self.field.exp(-m), self.field.one
        norms, z = [], self.zero
        for _ in range(length):
            z = one + q * z
            norms.append(one / z)
        out = np.empty(length, dtype=object)
        out[:] = norms
        return out

    def geometric_suffix_rows(self, x: np.ndarray, m) -> np.ndarray:
        out = np.empty(x.shape, dtype=object)
        for b in range(x.shape[0]):
            out[b] = self.geometric_suffix(x[b], m)
        return out

    def geometric_powers(self, m, n: int) -> np.ndarray:
        q, value = self.field.exp(-m), self.field.one
        out = np.empty(n, dtype=object)
        for k in range(n):
            out[k] = value
            value = value * q
        return out

    def geometric_suffix(self, u: np.ndarray, m) -> np.ndarray:
        q = self.field.exp(-m)
        out = np.empty(u.size, dtype=object)
        s = self.zero
        for k in range(u.size - 1, -1, -1):
            s = u[k] + q * s
            out[k] = s
        return out
