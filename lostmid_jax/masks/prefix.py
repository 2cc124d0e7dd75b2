"""Prefix-LM: the first n tokens attend to each other, the rest causally (0-based: j <= i or j < n)."""

from __future__ import annotations

import dataclasses

import numpy as np

from ..validation import check_int_like
from ._sums import positions, suffix
from .base import Mask


@dataclasses.dataclass(frozen=True)
class PrefixLM(Mask):
    """Prefix-LM: query i <= n sees keys 1..n; query i > n sees keys 1..i (1-based).

    Attributes:
      prefix: n, 0 <= n <= L (0 is Causal(), L is Bidirectional()).
    """

    prefix: int
    causal = False
    alibi_separable = False

    def __post_init__(self):
        object.__setattr__(self, "prefix", check_int_like("prefix", self.prefix, 0))

    def allows(self, i, j):
        return (j <= i) | (j < self.prefix)

    def key_range(self, queries: tuple[int, int], length: int) -> tuple[int, int]:
        return 0, min(length, max(queries[1], self.prefix))

    def check(self, length: int) -> "PrefixLM":
        if self.prefix > length:
            raise ValueError(f"prefix must be <= length = {length}, got {self.prefix}")
        return self

    def causal_at(self, length: int | None = None) -> bool:
        return self.prefix <= 1

    def counts(self, length: int) -> np.ndarray:
        return np.maximum(positions(length), self.prefix)  # c_i = max(i, n)

    def forward(self, length: int, ops):
        n = self.prefix

        def forward(g):
            out = ops.accumulate(g)
            if n:
                out[:n] = out[n - 1]  # queries 1..n see keys 1..n
            return out

        return forward

    def gather(self, length: int, ops):
        """(rA)_j = sum_{i >= j} u_i for j > n, sum_i u_i for j <= n."""
        n = self.prefix

        def gather(u):
            out = suffix(u, ops)
            out[:n] = out[0]  # every query sees the whole prefix
            return out

        return gather

    def alibi_sums(self, length: int, m, ops):
        return None  # the two-sided bias inside the prefix: dense rows (Content.dense)

    @property
    def label(self) -> str:
        return f"prefix-LM n={self.prefix}"

    @property
    def spec(self) -> str:
        return f"prefix:{self.prefix}"
