"""MaskSpec: nn's mask kinds (DecoderConfig.mask, window, prefix, sinks) as the shared mask classes.

Indices are 0-based along the sequence axis (the same rule holds for 1-based
ones), independent of the position encoding:

    causal          j <= i
    bidirectional   every j
    sliding_window  i - w < j <= i          (w positions including i)
    document        j <= i and seg[i] == seg[j]   (segment ids given at call time)
    prefix_lm       j <= i or j < n         (n prefix tokens)

Attention sinks (StreamingLLM, Xiao et al. 2023) add the first s keys to
every query at or after them: allowed(i, j) or (j < s and j <= i); the rule
stays causal, and with "sliding_window" it is theory.Sinks(s, w) (1-based:
j <= s or j > i - w, j <= i). They are refused with "document" (a sink would
cross segment boundaries).

Each kind is one class of :mod:`lostmid_jax.masks` (:func:`mask_of`, the
spec's ``rule``), the same class theory uses as the Step-0 prior:

    causal           Causal()
    bidirectional    Bidirectional()
    sliding_window   SlidingWindow(w), or Sinks(s, w) with sinks s >= 1
    document         Chunks(None)     (segment ids at call time)
    prefix_lm        PrefixLM(n)

(sinks with causal, prefix_lm or bidirectional add no key: the rule already
allows them). Every mask allows the diagonal, so every row has at least one
allowed key. The rule drives the dense masks (nn/masks.py), the query blocks
of the attention core (nn/attention_core.py, via :meth:`MaskSpec.key_range`)
and the fused C++ kernel (kernels/fused_cpu, FusedSpec; its C++ copy of the
rule is tested equal to ``allows``). Pure Python: no jax.
"""

from __future__ import annotations

import dataclasses

from ..validation import check_choice, check_int
from .base import Mask
from .causal import Bidirectional, Causal
from .chunks import Chunks
from .prefix import PrefixLM
from .window import SlidingWindow, Sinks

MASK_KINDS = ("causal", "bidirectional", "sliding_window", "document", "prefix_lm")


def mask_of(kind: str, *, window: int | None = None, prefix: int | None = None, sinks: int = 0,
            lengths=None) -> Mask:
    """The mask class of nn kind ``kind`` (``lengths``: the documents of "document", None for ids at call time).

    >>> mask_of("sliding_window", window=64, sinks=4)
    Sinks(sinks=4, window=64)
    >>> mask_of("prefix_lm", prefix=3)
    PrefixLM(prefix=3)
    """
    kinds = {"causal": Causal, "bidirectional": Bidirectional, "prefix_lm": lambda: PrefixLM(prefix),
             "sliding_window": lambda: Sinks(sinks, window) if sinks else SlidingWindow(window),
             "document": lambda: Chunks(lengths)}
    return kinds[check_choice("mask", kind, MASK_KINDS)]()


@dataclasses.dataclass(frozen=True)
class MaskSpec:
    """A mask topology (hashable: usable as a jit / custom_vjp constant).

    Attributes:
      kind: one of MASK_KINDS (see the module docstring).
      window: w >= 1 for "sliding_window" (required there, None otherwise).
      prefix: n >= 0 for "prefix_lm" (required there, None otherwise).
      sinks: s >= 0 sink keys 0..s-1 visible to every query i >= j (0: none).
      rule: the mask class of :mod:`lostmid_jax.masks` (:func:`mask_of`), derived.
    """

    kind: str = "causal"
    window: int | None = None
    prefix: int | None = None
    sinks: int = 0
    rule: Mask = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self):
        check_choice("mask", self.kind, MASK_KINDS)
        if self.kind == "sliding_window":
            if self.window is None:
                raise ValueError("window is required with mask='sliding_window'")
            object.__setattr__(self, "window", check_int("window", self.window, 1))
        elif self.window is not None:
            raise ValueError(f"window is only used with mask='sliding_window', got mask={self.kind!r}")
        if self.kind == "prefix_lm":
            if self.prefix is None:
                raise ValueError("prefix is required with mask='prefix_lm'")
            object.__setattr__(self, "prefix", check_int("prefix", self.prefix, 0))
        elif self.prefix is not None:
            raise ValueError(f"prefix is only used with mask='prefix_lm', got mask={self.kind!r}")
        object.__setattr__(self, "sinks", check_int("sinks", self.sinks, 0))
        if self.sinks and self.kind == "document":
            raise ValueError("sinks must be 0 with mask='document' (a sink key would cross segment boundaries)")
        object.__setattr__(self, "rule", mask_of(self.kind, window=self.window, prefix=self.prefix, sinks=self.sinks))

    @classmethod
    def from_config(cls, cfg) -> "MaskSpec":
        """The mask of a DecoderConfig (its ``mask``, ``window``, ``prefix`` and ``sinks``)."""
        return cls(cfg.mask, cfg.window, cfg.prefix, getattr(cfg, "sinks", 0))

    @property
    def needs_segments(self) -> bool:
        """True for "document": the rule needs segment ids at call time."""
        return self.rule.needs_segments

    def allows(self, i, j):
        """Allowed (query i, key j) pairs on broadcastable numpy or jax index arrays (segments aside)."""
        return self.rule.allows(i, j)

    def key_range(self, queries: tuple[int, int], length: int) -> tuple[int, int]:
        """Smallest key range [k0, k1) holding every key that queries [q0, q1) may see.

        causal / document: [0, q1); sliding_window: [max(0, q0 - w + 1), q1),
        or [0, q1) with sinks; prefix_lm: [0, max(q1, n)) (clipped to L);
        bidirectional: [0, L).
        """
        return self.rule.key_range(queries, length)

    def prefix_length(self, position: int) -> int | None:
        """Inputs that can reach output row ``position`` (0-based): position + 1 when no query
        sees a later key (causal, sliding_window, document), else None (all L)."""
        return position + 1 if self.rule.causal else None
