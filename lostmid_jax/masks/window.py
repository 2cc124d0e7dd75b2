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

import numpy as np

from ..validation import check_int_like
from ._checks import renamed
from ._costs import num
from ._sums import causal_geometric, geometric_window_gather, positions, suffix, window_sums
from .base import Mask
from .causal import Causal


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
        return (j <= i) & (i - j < self.window)

    def key_range(self, queries: tuple[int, int], length: int) -> tuple[int, int]:
        q0, q1 = queries
        return max(0, q0 - self.window + 1), q1

    def causal_at(self, length: int | None = None) -> bool:
        return length is not None and self.window >= length

    def counts(self, length: int) -> np.ndarray:
        return np.minimum(positions(length), min(self.window, length))  # c_i = min(i, w)

    def forward(self, length: int, ops):
        w = min(self.window, length)  # w >= L is causal (and a huge w stays a Python int)
        return lambda g: window_sums(g[::-1], w, ops)[::-1]

    def gather(self, length: int, ops):
        w = min(self.window, length)  # (rA)_j = sum_{i=j}^{min(L, j+w-1)} u_i
        return lambda u: window_sums(u, w, ops)

    def alibi_sums(self, length: int, m, ops):
        if self.window >= length:
            return causal_geometric(m, ops)
        return _window_alibi(self.window, length, m, ops)[:2]

    def cost_terms(self, length: int):
        return 3.0, 4.0, 1.45 * min(num(length), num(self.window)), ""

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
        return (j <= i) & ((j < self.sinks) | (i - j < self.window))

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

    def _causal(self, length: int) -> bool:
        return self.window is None or self.window >= length

    def counts(self, length: int) -> np.ndarray:
        if self._causal(length):
            return Causal().counts(length)
        i, s, w = positions(length), self.sinks, self.window
        return np.minimum(i, w) + np.maximum(0, np.minimum(s, i - w))  # c_i = min(i, w) + max(0, min(s, i - w))

    def forward(self, length: int, ops):
        if self._causal(length):
            return Causal().forward(length, ops)
        s, w = self.sinks, self.window
        i = np.arange(w + 1, length + 1)  # queries past their first window: + sinks 1..min(s, i - w)
        k = np.minimum(s, i - w)
        i, k = i[k >= 1], k[k >= 1]

        def forward(g):
            out = np.array(window_sums(g[::-1], w, ops)[::-1])
            if i.size:
                out[i - 1] = ops.add(out[i - 1], ops.accumulate(g)[k - 1])
            return out

        return forward

    def gather(self, length: int, ops):
        """The window sum plus [j <= s] sum_{i >= j+w} u_i."""
        if self._causal(length):
            return Causal().gather(length, ops)
        w = self.window
        n_extra = max(0, min(self.sinks, length - w))  # sinks j that queries beyond their window still see

        def gather(u):
            out = window_sums(u, w, ops)
            if n_extra:
                out[:n_extra] = ops.add(out[:n_extra], suffix(u, ops)[w:w + n_extra])
            return out

        return gather

    def alibi_sums(self, length: int, m, ops):
        """The window's geometric sums plus the sink keys j <= s seen by queries i >= j + w."""
        if self._causal(length):
            return Causal().alibi_sums(length, m, ops)
        s, w = self.sinks, self.window
        forward, gather, powers = _window_alibi(w, length, m, ops)
        causal_forward, causal_gather = causal_geometric(m, ops)
        i = np.arange(w + 1, length + 1)
        k = np.minimum(s, i - w)
        i, k = i[k >= 1], k[k >= 1]
        n_extra = max(0, min(s, length - w))

        def sink_forward(g):
            out = np.array(forward(g))
            if i.size:
                out[i - 1] = ops.add(out[i - 1], ops.mul(causal_forward(g)[k - 1], powers[i - k]))
            return out

        def sink_gather(u):
            out = np.array(gather(u))
            if n_extra:
                out[:n_extra] = ops.add(out[:n_extra], ops.mul(causal_gather(u)[w:w + n_extra], powers[w]))
            return out

        return sink_forward, sink_gather

    def cost_terms(self, length: int):
        span = num(length) if self.window is None else min(num(length), num(self.window + self.sinks))
        return 4.0, 6.0, 1.45 * span, ""

    @property
    def label(self) -> str:
        return f"sinks s={self.sinks}" + ("" if self.window is None else f" + window w={self.window}")

    @property
    def spec(self) -> str:
        return f"sinks:{self.sinks}" + ("" if self.window is None else f":{self.window}")


def _window_alibi(w: int, length: int, m, ops):
    """(forward, gather, powers q^0..q^L) of ALiBi weights over a causal window w < L."""
    powers = ops.geometric_powers(m, length + 1)
    gather = lambda u: geometric_window_gather(u, w, m, ops, powers)  # noqa: E731
    return (lambda g: gather(g[::-1])[::-1]), gather, powers
