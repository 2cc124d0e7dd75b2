"""The causal mask (the Cesàro matrix, the default) and full bidirectional attention.

0-based query i, key j:  Causal  j <= i, A[i, j] = 1 / (i + 1);  Bidirectional  every j, A[i, j] = 1 / L.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ._costs import num
from ._sums import causal_geometric, positions, suffix
from .base import Mask


@dataclasses.dataclass(frozen=True)
class Causal(Mask):
    """Uniform causal attention, A[i, j] = 1/i for j <= i (1-based; the Cesàro matrix)."""

    def allows(self, i, j):
        return j <= i

    def causal_at(self, length: int | None = None) -> bool:
        return True

    def counts(self, length: int) -> np.ndarray:
        return positions(length)

    def forward(self, length: int, ops):
        return lambda g: ops.accumulate(g)

    def gather(self, length: int, ops):
        return lambda u: suffix(u, ops)  # (rA)_j = sum_{i >= j} r_i / i

    def suffix_segments(self, length: int):
        return [(0, length)]

    def alibi_sums(self, length: int, m, ops):
        return causal_geometric(m, ops)

    @property
    def label(self) -> str:
        return "causal"

    @property
    def spec(self) -> str:
        return "causal"


@dataclasses.dataclass(frozen=True)
class Bidirectional(Mask):
    """Full attention, A[i, j] = 1/L for every i, j."""

    causal = False

    def allows(self, i, j):
        return (i >= 0) & (j >= 0)

    def key_range(self, queries: tuple[int, int], length: int) -> tuple[int, int]:
        return 0, length

    def counts(self, length: int) -> np.ndarray:
        return np.full(length, length)

    def forward(self, length: int, ops):
        return lambda g: ops.full(length, ops.total(g))

    def gather(self, length: int, ops):
        return lambda u: ops.full(length, ops.total(u))

    def row_operator(self, length: int, ops):
        """(rA)_j = sum_i r_i / L, a constant."""
        inv = ops.recip(np.array([length]))[0]
        return lambda r: ops.full(length, ops.mul(ops.total(r), inv))

    def alibi_sums(self, length: int, m, ops):
        """A causal scan in each direction for the two-sided bias -m |i - j|."""
        causal_forward, causal_gather = causal_geometric(m, ops)
        powers = ops.geometric_powers(m, length + 1)

        def both(x, first, second):  # first_i + q * second_{i+1} (second: the other direction, shifted)
            out = np.array(first(x))
            out[:-1] = ops.add(out[:-1], ops.mul(second(x)[1:], powers[1]))
            return out

        return (lambda g: both(g, causal_forward, lambda x: causal_gather(x)),
                lambda u: both(u[::-1], causal_forward, causal_gather)[::-1])

    def cost_terms(self, length: int):
        return 1.0, 2.0, math.log2(num(length)) + 1, ""

    @property
    def label(self) -> str:
        return "bidirectional"

    @property
    def spec(self) -> str:
        return "bidirectional"
