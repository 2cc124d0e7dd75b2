"""Causal sliding windows, with or without attention sinks (StreamingLLM, Xiao et al. 2023).

0-based query i, key j:

    SlidingWindow(w)   i - w < j <= i                    (w keys including i)
    Sinks(s, w)        j <= i and (j < s or j > i - w)   (s sink keys plus the window)
    Sinks(s)           j <= i                            (the full causal prefix holds the sinks)

Field names are nn's (DecoderConfig.window, DecoderConfig.sinks); the old
keywords ``width`` (SlidingWindow) and ``count`` (Sinks) are accepted, and
readable as properties, for one release.
"""

from __future__ import annotations

import dataclasses

from ..validation import check_int_like
from ._checks import renamed
from .base import Mask


@dataclasses.dataclass(frozen=True, init=False)
class SlidingWindow(Mask):
    """Causal sliding window: query i sees keys max(1, i - w + 1)..i (1-based).

    Attributes:
      window: w >= 1, keys per query including itself (w >= L is Causal()).
        ``width=`` is its old name.
    """

    window: int

    def __init__(self, window: int | None = None, *, width: int | None = None):
        window = renamed("window", window, "width", width)
        object.__setattr__(self, "window", check_int_like("window", window, 1))

    @property
    def width(self) -> int:
        """Old name of :attr:`window` (kept for one release)."""
        return self.window

    def allows(self, i, j):
        return (j <= i) & (j > i - self.window)

    def key_range(self, queries: tuple[int, int], length: int) -> tuple[int, int]:
        q0, q1 = queries
        return max(0, q0 - self.window + 1), q1

    def causal_at(self, length: int | None = None) -> bool:
        return length is not None and self.window >= length

    @property
    def label(self) -> str:
        return f"sliding window w={self.window}"

    @property
    def spec(self) -> str:
        return f"window:{self.window}"


@dataclasses.dataclass(frozen=True, init=False)
class Sinks(Mask):
    """Attention sinks (StreamingLLM): s always-visible first tokens plus a window.

    Query i sees {j <= i : j <= s or j > i - w} uniformly (1-based). Everything
    stays causal: a query before the end of the sinks sees only 1..i.

    Attributes:
      sinks: s >= 0 sink tokens, at most L. ``count=`` is its old name.
      window: w >= 1, the causal window including the query; None is the full
        causal prefix (then the prior equals Causal()).
    """

    sinks: int
    window: int | None = None

    def __init__(self, sinks: int | None = None, window: int | None = None, *, count: int | None = None):
        sinks = renamed("sinks", sinks, "count", count)
        object.__setattr__(self, "sinks", check_int_like("sinks", sinks, 0))
        object.__setattr__(self, "window", None if window is None else check_int_like("window", window, 1))

    @property
    def count(self) -> int:
        """Old name of :attr:`sinks` (kept for one release)."""
        return self.sinks

    def allows(self, i, j):
        if self.window is None:
            return j <= i
        return (j <= i) & ((j < self.sinks) | (j > i - self.window))

    def key_range(self, queries: tuple[int, int], length: int) -> tuple[int, int]:
        if self.window is None or self.sinks:  # one contiguous range must hold the sink keys too
            return 0, queries[1]
        return max(0, queries[0] - self.window + 1), queries[1]

    def check(self, length: int) -> "Sinks":
        if self.sinks > length:
            raise ValueError(f"sinks must be <= length = {length}, got {self.sinks}")
        return self

    def causal_at(self, length: int | None = None) -> bool:
        return self.window is None or length is not None and self.window >= length

    @property
    def label(self) -> str:
        return f"sinks s={self.sinks}" + ("" if self.window is None else f" + window w={self.window}")

    @property
    def spec(self) -> str:
        return f"sinks:{self.sinks}" + ("" if self.window is None else f":{self.window}")
