"""Dense Cesàro and residual-mixing matrices, for small L (reference use).

The Step-0 attention matrix of a causal layer with uniform attention is the
Cesàro matrix M[i, j] = 1/i for 1 <= j <= i (1-based), row-stochastic. A
residual block mixes it with the identity: N = (1 - a) I + a M
(Chowdhury, arXiv:2603.10123). The fast row code never forms these; they are
the independent route tests compare against.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

import numbers
import reprlib
from collections.abc import Sequence

from ..validation import check_bool_like, python_scalar
from . import _costs
from ._validate import check_alpha, check_length, to_fraction


def cesaro_matrix(length: int, *, exact: bool = False):
    """The L x L Cesàro matrix M[i, j] = 1/i for j <= i.

    Args:
      length: L >= 1.
      exact: True for a list of lists of ``Fraction``; False for a float64
        array [L, L].

    >>> cesaro_matrix(3)
    array([[1.        , 0.        , 0.        ],
           [0.5       , 0.5       , 0.        ],
           [0.33333333, 0.33333333, 0.33333333]])
    """
    length = check_length(length)
    exact = check_bool_like("exact", exact)
    _costs.check_dense("cesaro_matrix", length, exact=exact, per_entry_ns=2000.0 if exact else 10.0)
    if exact:
        return [[Fraction(1, i + 1) if j <= i else Fraction(0) for j in range(length)] for i in range(length)]
    i = np.arange(1, length + 1, dtype=np.float64)
    return np.tril(np.ones((length, length))) / i[:, None]


def mixing_matrix(length: int, alpha, *, exact: bool = False):
    """The residual block N = (1 - a) I + a M, dense L x L.

    Args:
      length: L >= 1.
      alpha: a in [0, 1].
      exact: True for ``Fraction`` entries (a converted exactly), False for
        a float64 array [L, L].

    >>> mixing_matrix(2, 0.5)
    array([[1.  , 0.  ],
           [0.25, 0.75]])
    """
    alpha = check_alpha("alpha", alpha)
    length = check_length(length)
    exact = check_bool_like("exact", exact)
    _costs.check_dense("mixing_matrix", length, exact=exact, copies=6.0 if exact else 5.0,
                       per_entry_ns=1.5e4 if exact else 20.0)
    if exact:
        a = to_fraction(alpha)
        m = cesaro_matrix(length, exact=True)
        return [[(1 - a) * (i == j) + a * m[i][j] for j in range(length)] for i in range(length)]
    a = float(alpha)
    return (1.0 - a) * np.eye(check_length(length)) + a * cesaro_matrix(length)


def exact_matmul(x, y):
    """Product of two dense exact matrices, x [n, m] @ y [m, p] (lists of lists of int / Fraction).

    Entries may be any rationals (int, Fraction, NumPy integers); floats are
    refused, since the product would no longer be exact. The work, n m p
    products of numbers whose size grows with their bits, is checked against
    :mod:`.resources` first.

    >>> exact_matmul([[Fraction(1, 2), 1]], [[2], [Fraction(1, 3)]])
    [[Fraction(4, 3)]]
    """
    (n, m), (m_y, p) = _shape("x", x), _shape("y", y)
    if m != m_y:
        raise ValueError(f"x has {m} columns but y has {m_y} rows; they must match")
    _costs.check_matmul(n, m, p, 1)  # before reading the entries
    x, bits_x = _exact_matrix("x", x, m)
    y, bits_y = _exact_matrix("y", y, p)
    _costs.check_matmul(n, m, p, max(bits_x, bits_y))
    cols = list(zip(*y))
    return [[sum((p * q for p, q in zip(row, col)), Fraction(0)) for col in cols] for row in x]


def _shape_error(name: str) -> str:
    return f"{name} must be a non-empty rectangular matrix (a list of equal-length lists) of int or Fraction"


def _is_row(row) -> bool:
    """A sized iterable that is not a string (a 0-d array has __len__ but no length)."""
    if isinstance(row, (str, bytes, dict, set)) or not hasattr(row, "__iter__"):
        return False
    try:
        len(row)
    except TypeError:
        return False
    return True


def _shape(name: str, rows) -> tuple[int, int]:
    """(rows, columns) of a list of lists, read from its first row (the rest are checked with the entries)."""
    if not _is_row(rows):
        raise ValueError(f"{_shape_error(name)}, got {reprlib.repr(rows)}")
    if len(rows) == 0:
        raise ValueError(f"{_shape_error(name)}, got 0 rows")
    first = rows[0] if isinstance(rows, Sequence) else next(iter(rows))
    if not _is_row(first) or len(first) == 0:
        raise ValueError(f"{_shape_error(name)}, got row 0 = {reprlib.repr(first)}")
    return len(rows), len(first)


def _exact_matrix(name: str, rows, width: int) -> tuple[list[list], int]:
    """The entries of a validated-shape matrix as int / Fraction, and the largest entry's bits."""
    out, bits = [], 1
    for i, row in enumerate(rows):
        if not _is_row(row) or len(row) != width:
            raise ValueError(f"{_shape_error(name)}: row {i} is {reprlib.repr(row)}, row 0 has {width} entries")
        values = []
        for j, v in enumerate(row):
            v = python_scalar(v)
            if isinstance(v, bool) or not isinstance(v, numbers.Rational):
                raise ValueError(f"{name}[{i}][{j}] must be an exact rational (int or Fraction), got {v!r}")
            v = v if isinstance(v, (int, Fraction)) else Fraction(int(v.numerator), int(v.denominator))
            bits = max(bits, _costs.value_bits(v))
            values.append(v)
        out.append(values)
    return out, bits
