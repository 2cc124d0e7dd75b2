"""Prefix-LM: the first n tokens attend to each other, the rest causally (0-based: j <= i or j < n)."""

from __future__ import annotations

import dataclasses

from ..validation import check_int_like
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

    @property
    def label(self) -> str:
        return f"prefix-LM n={self.prefix}"

    @property
    def spec(self) -> str:
        return f"prefix:{self.prefix}"
