"""Documents (chunks): causal uniform attention inside each segment.

0-based query i, key j: j <= i and seg(i) == seg(j). The segments are the
given ``lengths`` (theory), or segment ids given at call time (nn's "document"
mask, ``lengths=None``: the rule here is then j <= i and the caller adds
seg[i] == seg[j]).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..validation import check_int_like
from ._checks import check_segments, is_sequence, size
from ._costs import num
from ._sums import causal_geometric, suffix
from .base import Mask


@dataclasses.dataclass(frozen=True)
class Chunks(Mask):
    """Document / chunk mask: causal uniform attention inside each segment.

    Attributes:
      lengths: segment lengths (each >= 1), in order; they must sum to L.
        A list is stored as a tuple. None: segment ids are given at call
        time (nn's mask "document"); such a mask has no Step-0 prior.
    """

    lengths: tuple[int, ...] | None

    def __post_init__(self):
        if self.lengths is None:
            return
        n = size(self.lengths)
        if not is_sequence(self.lengths) or not hasattr(self.lengths, "__iter__"):
            raise ValueError(f"lengths must be a sequence of integers >= 1, got {self.lengths!r}")
        check_segments(n, f"lengths with {n} segments")
        values = tuple(check_int_like(f"lengths[{k}]", v, 1) for k, v in enumerate(self.lengths))
        if not values:
            raise ValueError("lengths must hold at least one segment length")
        object.__setattr__(self, "lengths", values)

    @classmethod
    def equal(cls, length: int, size: int) -> "Chunks":
        """Segments of ``size`` tokens, the last one shorter if size does not divide L.

        >>> Chunks.equal(10, 4)
        Chunks(lengths=(4, 4, 2))
        """
        length, size = check_int_like("length", length, 1), check_int_like("size", size, 1)
        full, rest = divmod(length, size)
        check_segments(full + (rest > 0), f"length={length} in segments of size={size} ({full + (rest > 0)} segments)")
        return cls((size,) * full + ((rest,) if rest else ()))

    @property
    def needs_segments(self) -> bool:
        return self.lengths is None

    def allows(self, i, j):
        """j <= i in the same segment (numpy arrays; with ``lengths=None``, j <= i and segments aside)."""
        if self.lengths is None:
            return j <= i
        ends = np.cumsum(self.lengths)
        segment = lambda x: np.searchsorted(ends, np.asarray(x), side="right")  # noqa: E731
        return (j <= i) & (segment(i) == segment(j))

    def check(self, length: int) -> "Chunks":
        if self.lengths is None:
            raise ValueError("Chunks lengths are None (segment ids at call time); give the segment lengths")
        if sum(self.lengths) != length:
            raise ValueError(f"Chunks lengths sum to {sum(self.lengths)} but length is {length}; they must match")
        return self

    def causal_at(self, length: int | None = None) -> bool:
        return self.lengths == (length,)

    def _bounds(self) -> list[tuple[int, int]]:
        """[start, end) of each segment (0-based)."""
        ends = np.cumsum(self.lengths)
        return list(zip(ends - np.asarray(self.lengths), ends))

    def counts(self, length: int) -> np.ndarray:
        return np.concatenate([np.arange(1, n + 1) for n in self.lengths])

    def forward(self, length: int, ops):
        bounds = self._bounds()
        return lambda g: np.concatenate([ops.accumulate(g[s:e]) for s, e in bounds])

    def gather(self, length: int, ops):
        """(rA)_j = sum_{i >= j, i in seg(j)} u_i (a suffix sum per segment)."""
        bounds = self._bounds()
        return lambda u: np.concatenate([suffix(u[s:e], ops) for s, e in bounds])

    def suffix_segments(self, length: int):
        return [(int(s), int(e)) for s, e in self._bounds()]

    def alibi_sums(self, length: int, m, ops):
        causal_forward, causal_gather = causal_geometric(m, ops)
        bounds = self._bounds()
        return (lambda g: np.concatenate([causal_forward(g[a:b]) for a, b in bounds]),
                lambda u: np.concatenate([causal_gather(u[a:b]) for a, b in bounds]))

    def cost_terms(self, length: int):
        n = len(self.lengths)
        return 1.0, 1.0 * n, 1.45 * num(max(self.lengths)), f"prior=Chunks with {n} segments"

    @property
    def label(self) -> str:
        if self.lengths is None:
            return "documents"
        sizes = sorted(set(self.lengths))
        shown = f"{sizes[0]}" if len(sizes) == 1 else f"{min(sizes)}-{max(sizes)}"
        return f"chunks {len(self.lengths)}x{shown}"

    @property
    def spec(self) -> str:
        if self.lengths is None:
            raise ValueError("Chunks(lengths=None) (segment ids at call time) has no text spec")
        if Chunks.equal(sum(self.lengths), self.lengths[0]) == self:
            return f"chunks:{self.lengths[0]}"
        return "chunks:" + "+".join(str(n) for n in self.lengths)
