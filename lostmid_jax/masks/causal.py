"""The causal mask (the Cesàro matrix, the default) and full bidirectional attention.

0-based query i, key j:  Causal  j <= i, A[i, j] = 1 / (i + 1);  Bidirectional  every j, A[i, j] = 1 / L.
"""

from __future__ import annotations

import dataclasses

from .base import Mask


@dataclasses.dataclass(frozen=True)
class Causal(Mask):
    """Uniform causal attention, A[i, j] = 1/i for j <= i (1-based; the Cesàro matrix)."""

    def allows(self, i, j):
        return j <= i

    def causal_at(self, length: int | None = None) -> bool:
        return True

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

    @property
    def label(self) -> str:
        return "bidirectional"

    @property
    def spec(self) -> str:
        return "bidirectional"
