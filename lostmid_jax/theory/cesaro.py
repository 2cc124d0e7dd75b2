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

from ..validation import check_bool
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
    if check_bool("exact", exact):
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
    check_alpha("alpha", alpha)
    if check_bool("exact", exact):
        a = to_fraction(alpha)
        m = cesaro_matrix(length, exact=True)
        return [[(1 - a) * (i == j) + a * m[i][j] for j in range(length)] for i in range(length)]
    a = float(alpha)
    return (1.0 - a) * np.eye(check_length(length)) + a * cesaro_matrix(length)


def exact_matmul(x, y):
    """Product of two dense Fraction matrices (lists of lists)."""
    cols = list(zip(*y))
    return [[sum((p * q for p, q in zip(row, col)), Fraction(0)) for col in cols] for row in x]
