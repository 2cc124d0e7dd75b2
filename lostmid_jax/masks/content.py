"""Content priors: Step-0 attention with score terms that do not vanish at initialization.

Per layer l and head h, query i gives key j in its mask's allowed set S_i the logit

    s_lh(i, j) = ( base_lh + diag_lh [i = j] + c_j - m_lh |i - j| ) / T

(base_lh * 1 + diag_lh * I: a bonus for attending to oneself; c_j: per-key
content scores; m_lh: ALiBi slopes, per layer and head; T > 0: the softmax
temperature). Each head's row is the softmax over S_i of its logits and the
layer's matrix is the head average with weights p_h (summing to 1):

    A_l[i, j] = sum_h p_h exp(s_lh(i, j)) / sum_{k in S_i} exp(s_lh(i, k)).

``base`` is the same for every key of a row, so it cancels in the softmax;
it is accepted (and checked) so that a measured (base, diag) pair can be
given as measured. Parameters given once apply to every layer and every
head (a single (base, diag) pair reaches all N heads); a sequence of N
values is one per head; a sequence of H' sequences (each of N values, or
one value for all heads) is one row per layer, and then the prior fits
depth H = H' only.

How each row is computed (:mod:`.content_ops`), per layer and head:

- no ALiBi (m = 0), any mask: O(L). With g_j = e^{c_j / T} and
  b = e^{diag / T}, Z_i = sum_{j in S_i} g_j + (b - 1) g_i is a weighted
  version of the mask's own row sums, and (r A)_j = g_j [G(u)_j + (b - 1) u_j]
  with u = r / Z and G the mask's transposed sum (suffix, window or segment
  sums, as for the uniform priors).
- ALiBi with the causal, window, sink, chunk or bidirectional mask: O(L).
  e^{-m (i - j)} g_j = e^{-m i} (e^{m j} g_j) is separable: Z_i and the
  transposed sum are geometric scans (:class:`.ALiBi`'s, with weights g),
  windowed by a block split without subtraction, per chunk, or one in each
  direction for the two-sided bias -m |i - j|.
- ALiBi with the prefix-LM mask: dense, O(L^2) per layer and head.

The diagonal term adds (b - 1) >= 0 for diag >= 0; a negative diag (a self
penalty) subtracts (1 - b) g_i, the only subtraction, whose relative error
grows like e^{-diag/T} when the diagonal dominates the row.
"""

from __future__ import annotations

import dataclasses

from ..resources import check_budget, check_max_heads
from ..validation import check_int_like
from ._checks import finite as _finite
from ._checks import is_sequence as _is_seq
from ._costs import num
from .content_ops import content_matrix, layer_operators
from .alibi_slopes import SLOPE_RULES
from .base import Mask, Prior
from .causal import Bidirectional, Causal
from .chunks import Chunks
from .prefix import PrefixLM
from .window import SlidingWindow, Sinks

MASKS = (Causal, Bidirectional, SlidingWindow, Chunks, PrefixLM, Sinks)
"""The uniform priors a Content prior can take as its mask."""


def _per_layer_head(name: str, value, heads: int, *, minimum=None) -> tuple[tuple, ...]:
    """A number, N numbers, or H' rows of N (or 1) numbers -> H' x N tuple (H' = 1 unless per layer)."""

    def number(where, v):
        v = _finite(where, v)
        if minimum is not None and v < minimum:
            raise ValueError(f"{where} must be >= {minimum}, got {v!r}")
        return v

    def row(where, values):
        if not _is_seq(values):
            return (number(where, values),) * heads
        if len(values) not in (1, heads):
            raise ValueError(f"{where} has {len(values)} entries but heads is {heads}; give 1 (all heads) or {heads}")
        out = tuple(number(f"{where}[{k}]", v) for k, v in enumerate(values))
        return out * heads if len(out) == 1 else out

    if not _is_seq(value):
        return (row(name, value),)
    if len(value) == 0:
        raise ValueError(f"{name} must be a number, {heads} numbers (one per head) or one row per layer; got empty")
    if all(_is_seq(v) for v in value):
        return tuple(row(f"{name}[{l}]", v) for l, v in enumerate(value))
    if any(_is_seq(v) for v in value):
        raise ValueError(f"{name} mixes numbers and sequences; give {heads} numbers or one sequence per layer")
    return (row(name, value),)


@dataclasses.dataclass(frozen=True)
class Content(Prior):
    """Softmax attention over a mask with self bonus, key scores, ALiBi, head weights, temperature.

    Attributes:
      mask: the allowed keys, one of Causal(), Bidirectional(),
        SlidingWindow(w), Chunks(lengths), PrefixLM(n), Sinks(s, w).
      heads: N >= 1 heads.
      diag: self bonus diag_lh added to the logit of key j = i: a number
        (every layer and head), N numbers (per head), or one row per layer
        (each N numbers, or 1 for every head). Stored as a tuple of rows.
      base: base_lh added to every logit, same forms as ``diag``; it cancels
        in the softmax (kept so a measured pair can be stated).
      scores: None, or L per-key content scores c_j (finite; the same for every
        layer and head), checked against L by :func:`~.kinds.check_prior`.
      slopes: ALiBi slopes: None (no ALiBi), a rule name ("alibi" or
        "geometric", :mod:`.alibi_slopes`, the standard slopes of N heads in
        every layer), or numbers >= 0 in the forms of ``diag`` (per head,
        per layer and head). Bias -m |i - j|.
      head_weights: None (equal weights 1/N) or N numbers >= 0 with a
        positive sum, normalized to sum to 1.
      temperature: T > 0 dividing every logit (bias included).
    """

    mask: object = Causal()
    heads: int = 1
    diag: object = 0
    base: object = 0
    scores: tuple | None = None
    slopes: object = None
    head_weights: tuple | None = None
    temperature: object = 1

    def __post_init__(self):
        if not isinstance(self.mask, Mask):  # the one validation of a mask
            names = ", ".join(p.__name__ for p in MASKS)
            raise ValueError(f"mask must be one of {names} (a uniform prior), got {self.mask!r}")
        n = check_max_heads(check_int_like("heads", self.heads, 1))
        object.__setattr__(self, "heads", n)
        object.__setattr__(self, "diag", _per_layer_head("diag", self.diag, n))
        object.__setattr__(self, "base", _per_layer_head("base", self.base, n))
        if self.scores is not None:
            if not _is_seq(self.scores) or len(self.scores) == 0:
                raise ValueError(f"scores must be None or a sequence of L finite numbers, got {self.scores!r}")
            check_budget(f"scores with {len(self.scores)} entries", nbytes=40.0 * len(self.scores),
                         operations=1000.0 * len(self.scores))
            object.__setattr__(self, "scores", tuple(_finite(f"scores[{k}]", c) for k, c in enumerate(self.scores)))
        if isinstance(self.slopes, str):
            if self.slopes not in SLOPE_RULES:
                raise ValueError(f"slopes must be None, one of {', '.join(SLOPE_RULES)}, or numbers >= 0; got {self.slopes!r}")
        elif self.slopes is not None:
            object.__setattr__(self, "slopes", _per_layer_head("slopes", self.slopes, n, minimum=0))
        if self.head_weights is not None:
            if not _is_seq(self.head_weights) or len(self.head_weights) != n:
                raise ValueError(f"head_weights must be None or {n} numbers >= 0 (one per head), got {self.head_weights!r}")
            values = tuple(_finite(f"head_weights[{k}]", p) for k, p in enumerate(self.head_weights))
            for k, p in enumerate(values):
                if p < 0:
                    raise ValueError(f"head_weights[{k}] must be >= 0, got {p!r}")
            if not sum(values) > 0:
                raise ValueError(f"head_weights must have a positive sum, got {values!r}")
            object.__setattr__(self, "head_weights", values)
        temperature = _finite("temperature", self.temperature)
        if not temperature > 0:
            raise ValueError(f"temperature must be a finite number > 0, got {self.temperature!r}")
        object.__setattr__(self, "temperature", temperature)
        counts = {len(v) for v in (self.diag, self.base) if len(v) > 1}
        if isinstance(self.slopes, tuple) and len(self.slopes) > 1:
            counts.add(len(self.slopes))
        if len(counts) > 1:
            raise ValueError(f"diag, base and slopes give different numbers of layers {sorted(counts)}; they must match")

    @property
    def layers(self) -> int:
        """H' rows of per-layer values (1 when every layer is the same)."""
        sizes = [len(self.diag), len(self.base)] + ([len(self.slopes)] if isinstance(self.slopes, tuple) else [])
        return max(sizes)

    def layer_values(self, layer: int) -> dict:
        """Parameters of layer ``layer`` (0-based; a single row serves every layer).

        Returns:
          dict with diag, base (N numbers each), slopes (None, a rule name, or
          N numbers), weights (N exact fractions of the head weights summing to 1).
        """
        pick = lambda rows: rows[layer if len(rows) > 1 else 0]  # noqa: E731
        slopes = pick(self.slopes) if isinstance(self.slopes, tuple) else self.slopes
        return {"diag": pick(self.diag), "base": pick(self.base), "slopes": slopes}

    def weights(self) -> tuple:
        """Head weights p_h summing to 1, as exact values where the inputs are exact (Fraction for ints)."""
        from fractions import Fraction

        if self.head_weights is None:
            return (Fraction(1, self.heads),) * self.heads
        total = sum(self.head_weights)
        return tuple(Fraction(p) / Fraction(total) if isinstance(p, int) and isinstance(total, int) else p / total
                     for p in self.head_weights)

    @property
    def has_alibi(self) -> bool:
        """Whether any slope is nonzero (a rule name always is)."""
        if self.slopes is None:
            return False
        return isinstance(self.slopes, str) or any(m != 0 for row in self.slopes for m in row)

    @property
    def dense(self) -> bool:
        """True where rows are computed densely: ALiBi with the prefix-LM mask (two-sided bias in the prefix)."""
        return self.has_alibi and not self.mask.alibi_separable

    @property
    def support(self) -> Mask:
        return self.mask

    @property
    def causal(self) -> bool:
        return self.mask.causal

    def check(self, length: int) -> "Content":
        if self.scores is not None and len(self.scores) != length:
            raise ValueError(f"scores has {len(self.scores)} entries but length is {length}; they must match")
        self.mask.check(length)
        return self

    def content_form(self) -> "Content":
        return self

    def row_operator(self, length: int, ops):
        """One operator r -> r A_l per row of per-layer values (:mod:`.content_ops`); a single one unpacked."""
        operators = layer_operators(self, length, ops)
        return operators[0] if len(operators) == 1 else operators

    def cost_terms(self, length: int):
        per_head = num(length) if self.dense else 6.0  # dense kernels: L entries per row entry
        return (per_head * self.heads, 8.0 * self.heads, 1.45 * num(length),
                f"prior=Content(heads={self.heads}{', dense' if self.dense else ''})")

    def norm_heads(self, length: float) -> float:
        return self.heads * self.layers * (length if self.dense else 1.0)  # norms (and dense kernels), once

    def layer_matrix(self, length: int, layer: int = 0):
        """float64 [L, L] matrix of layer ``layer`` (0-based), dense (:func:`.content_ops.content_matrix`)."""
        return content_matrix(self, length, layer)

    def attention_matrix(self, length: int, *, exact: bool = False):
        if exact:
            raise ValueError("exact=True is not available for Content priors: their weights e^(score) are irrational")
        if self.layers > 1:
            raise ValueError(f"this Content prior has {self.layers} layers; use content_matrix(prior, length, layer)")
        return content_matrix(self, length)

    def check_rational(self) -> None:
        if self.has_alibi or self.scores is not None and any(c != self.scores[0] for c in self.scores) or any(
                d != 0 for row in self.diag for d in row):
            raise ValueError("backend 'exact' needs rational attention weights: this Content prior has e^(score) terms "
                             "(nonzero diag, varying scores or ALiBi slopes); use backend='mpmath' or 'arb'")

    @property
    def label(self) -> str:
        parts = [self.mask.label]
        diags = {d for row in self.diag for d in row}
        if diags != {0}:
            parts.append(f"self bonus {float(next(iter(diags))):g}" if len(diags) == 1 else "self bonus per head")
        if self.scores is not None:
            parts.append("key scores")
        if isinstance(self.slopes, str):
            parts.append(f"ALiBi {self.heads} heads" + (" (geometric slopes)" if self.slopes == "geometric" else ""))
        elif self.has_alibi:
            parts.append(f"ALiBi {self.heads} heads (custom slopes)")
        if self.head_weights is not None:
            parts.append("weighted heads")
        if self.temperature != 1:
            parts.append(f"T={float(self.temperature):g}")
        return "content: " + ", ".join(parts)

    @property
    def spec(self) -> str:
        if self.scores is not None or self.layers > 1:
            raise ValueError("a Content prior with per-key scores or per-layer values has no text spec")

        def numbers(values):
            values = tuple(values)
            return repr(float(values[0])) if len(set(values)) == 1 else "/".join(repr(float(v)) for v in values)

        parts = [] if self.mask == Causal() else [self.mask.spec]
        if self.heads != 1:
            parts.append(f"heads={self.heads}")
        for key in ("diag", "base"):
            if set(getattr(self, key)[0]) != {0}:
                parts.append(f"{key}={numbers(getattr(self, key)[0])}")
        if isinstance(self.slopes, str):
            parts.append(f"slopes={self.slopes}")
        elif self.slopes is not None:
            parts.append("slopes=" + "/".join(repr(float(v)) for v in self.slopes[0]))
        if self.head_weights is not None:
            parts.append("weights=" + "/".join(repr(float(v)) for v in self.head_weights))
        if self.temperature != 1:
            parts.append(f"temperature={float(self.temperature)!r}")
        return ":".join(["content", *parts])
