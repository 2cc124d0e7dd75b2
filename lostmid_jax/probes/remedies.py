"""Remedies applied at inference to the same model, no retraining: what each changes and what Step 0 predicts.

Shapes: E examples, k passages, T prompt ids.

    r = parse_remedy("rope_scaling:yarn:4")           # or Remedy(kind="rope_scaling", scaling="yarn", factor=4)
    applied = apply_remedy(r, model, probes, marker_ids=[7], context=512)
    applied.model, applied.probes                     # the remedied model (same weights) and probe set
    applied.skipped                                   # None, or why the remedy does not apply to this model
    applied.noop                                      # the remedy changes nothing at this length (not measured)

Each remedy is a spec string (the CLI's ``--remedies``):

=============================  ==================================================================
spec                           what it changes
=============================  ==================================================================
rope_base:F                    rope_theta -> F rope_theta (RoPE models; F > 0)
rope_scaling:KIND:F[:P]        nn.RopeScaling(KIND, factor F, original context P; default
                               ``context``, else max_positions), KIND linear, dynamic (NTK-aware)
                               or yarn, as transformers defines them (:mod:`lostmid_jax.nn.rope_scaling`);
                               it replaces any scaling the model had
markers:R1/R2/...              the marker ids inserted into every prompt at the relative positions
                               R in (0, 1) of the document (never inside the fact: a point that
                               falls inside it moves to the fact's start); T grows by their count
reorder:first | reorder:last   the RAG reordering: the key passage moved first / last (every
                               prompt of an example becomes the one with the fact in passage 1 / k;
                               it presumes a retriever that knows the key passage)
sinks:S                        S attention sinks (keys 1..S seen by every query) on a model with a
                               sliding window
sinks:S:W                      StreamingLLM at inference: a sliding window of W plus S sinks on a
                               causal model
=============================  ==================================================================

**What the Step-0 theory predicts** (docs/theory.md §7; :func:`step0_share`
computes it from the mask classes of :mod:`lostmid_jax.masks` and the exact
theory rows): at initialization attention is uniform over the keys the mask
allows (``analysis.prior_for``), whatever the position encoding. A RoPE change
(base, any scaling) leaves that prior identical, so the theory predicts no
change at all: a RoPE remedy can only act on what training learned. Sinks and
windows change the mask, hence the prior itself, and the theory gives their
effect. Markers lengthen the sequence and move the fact; reordering moves the
fact to an end of the U: for both the theory row at the new length and span
gives the predicted change of the fact's share of the influence.

**No-ops** (:func:`noop_reason`): a model remedy that provably changes nothing
at the lengths the probe feeds the model (T, and T + A - 1 when scoring an
answer of A ids) is not measured and is reported as "no-op at this length":
the remedied config differs only in the mask and RoPE fields, its mask allows
exactly the same (query, key) pairs on those lengths, and its RoPE frequencies
and attention factor are bit-identical at each of them. Examples:
``sinks:S:W`` on a causal model with W >= the longest sequence (every query
still sees every earlier key), ``rope_scaling:dynamic:F`` while the sequence
stays within the original context P, a factor of 1.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from flax import nnx

from ..nn.rope_scaling import RopeScaling
from ..validation import check_float, check_int
from ..retrieval.design import ProbeSet

KINDS = ("rope_base", "rope_scaling", "markers", "reorder", "sinks")
SCALINGS = ("linear", "dynamic", "yarn")
PLACES = ("first", "last")
NOOP = "no-op at this length"
"""The verdict of a remedy that provably changes nothing at the probe's lengths (:func:`noop_reason`)."""
_MASK_AND_ROPE = ("mask", "window", "sinks", "rope_theta", "rope_scaling")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Remedy:
    """One inference-time remedy (module table).

    Attributes:
      kind: one of :data:`KINDS`.
      factor: rope_base's multiplier of theta, or the scaling factor s (> 0).
      scaling: rope_scaling's kind (linear, dynamic, yarn).
      context: rope_scaling's original context P (None: the experiment's, else max_positions).
      at: markers' relative positions, each in (0, 1), increasing.
      place: reorder's "first" or "last".
      sinks: S >= 1 sink keys.
      window: W >= 1, the sliding window imposed with the sinks (None: the model's own).
    """

    kind: str
    factor: float | None = None
    scaling: str | None = None
    context: int | None = None
    at: tuple[float, ...] = ()
    place: str | None = None
    sinks: int | None = None
    window: int | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"remedies: kind must be one of {KINDS}, got {self.kind!r}")
        if self.kind in ("rope_base", "rope_scaling"):
            object.__setattr__(self, "factor", check_float("remedies factor", self.factor, 0.0, open_min=True))
        if self.kind == "rope_scaling":
            if self.scaling not in SCALINGS:
                raise ValueError(f"remedies: rope_scaling kind must be one of {SCALINGS}, got {self.scaling!r}")
            if self.context is not None:
                check_int("remedies rope_scaling context", self.context, 1)
        if self.kind == "markers":
            at = tuple(float(r) for r in self.at)
            if not at or any(not 0 < r < 1 for r in at) or list(at) != sorted(set(at)):
                raise ValueError(f"remedies: markers need increasing relative positions in (0, 1), got {self.at!r}")
            object.__setattr__(self, "at", at)
        if self.kind == "reorder" and self.place not in PLACES:
            raise ValueError(f"remedies: reorder must be 'first' or 'last', got {self.place!r}")
        if self.kind == "sinks":
            check_int("remedies sinks", self.sinks, 1)
            if self.window is not None:
                check_int("remedies sinks window", self.window, 1)

    @property
    def label(self) -> str:
        """The spec string (parse_remedy(r.label) == r)."""
        if self.kind == "rope_base":
            return f"rope_base:{self.factor:g}"
        if self.kind == "rope_scaling":
            return f"rope_scaling:{self.scaling}:{self.factor:g}" + (f":{self.context}" if self.context else "")
        if self.kind == "markers":
            return "markers:" + "/".join(f"{r:g}" for r in self.at)
        if self.kind == "reorder":
            return f"reorder:{self.place}"
        return f"sinks:{self.sinks}" + (f":{self.window}" if self.window else "")

    @property
    def acts_on(self) -> str:
        """"model" (same weights, changed config) or "prompt" (same model, changed input)."""
        return "prompt" if self.kind in ("markers", "reorder") else "model"


def parse_remedy(text: str) -> Remedy:
    """A :class:`Remedy` from its spec string (module table); ValueError naming ``remedies`` otherwise."""
    if not isinstance(text, str) or ":" not in text:
        raise ValueError(f"remedies: each must be KIND:ARGS with KIND in {KINDS} (e.g. rope_base:4, "
                         f"rope_scaling:yarn:4, markers:0.25/0.5/0.75, reorder:first, sinks:4:64), got {text!r}")
    kind, _, args = text.strip().partition(":")
    parts = args.split(":")
    try:
        if kind == "rope_base" and len(parts) == 1:
            return Remedy(kind=kind, factor=float(parts[0]))
        if kind == "rope_scaling" and len(parts) in (2, 3):
            return Remedy(kind=kind, scaling=parts[0], factor=float(parts[1]),
                          context=int(parts[2]) if len(parts) == 3 else None)
        if kind == "markers" and len(parts) == 1:
            return Remedy(kind=kind, at=tuple(float(r) for r in parts[0].split("/")))
        if kind == "reorder" and len(parts) == 1:
            return Remedy(kind=kind, place=parts[0])
        if kind == "sinks" and len(parts) in (1, 2):
            return Remedy(kind=kind, sinks=int(parts[0]), window=int(parts[1]) if len(parts) == 2 else None)
    except (TypeError, ValueError) as err:
        if str(err).startswith("remedies"):
            raise
        raise ValueError(f"remedies: cannot read {text!r} ({err})") from None
    raise ValueError(f"remedies: {text!r} is not a remedy spec (KIND in {KINDS}; see probes.remedies)")


@dataclasses.dataclass(frozen=True, eq=False)
class Applied:
    """A remedy applied: the model and probes to measure, or why it was skipped.

    Attributes:
      remedy: the Remedy.
      model: the remedied model (the same weights; the same object for prompt remedies).
      probes: the remedied probe set (the same object for model remedies).
      skipped: None, or the reason it is not measured: it does not apply to this model, or it is a no-op at
        the probe's lengths (the reason then starts with :data:`NOOP`; :attr:`noop`).
    """

    remedy: Remedy
    model: object
    probes: ProbeSet
    skipped: str | None = None

    @property
    def noop(self) -> bool:
        """The remedy provably changes nothing at the probe's lengths (:func:`noop_reason`)."""
        return is_noop(self.skipped)


def is_noop(reason: str | None) -> bool:
    """Whether a skipped remedy's ``reason`` is a no-op's (:func:`noop_reason`) rather than "not applicable"."""
    return bool(reason) and reason.startswith(NOOP)


def with_config(model, cfg):
    """The model's weights under config ``cfg`` (same parameter shapes; no random initialization)."""
    from ..nn import Decoder

    abstract = nnx.eval_shape(lambda: Decoder(cfg, rngs=nnx.Rngs(0)))
    graphdef, _ = nnx.split(abstract)
    return nnx.merge(graphdef, nnx.state(model))


def remedied_config(remedy: Remedy, cfg, *, context: int | None = None):
    """(DecoderConfig, None) for a model remedy, or (None, reason) when it does not apply to ``cfg``."""
    if remedy.kind in ("rope_base", "rope_scaling") and cfg.position != "rope":
        return None, f"the model has position={cfg.position!r}, not RoPE"
    if remedy.kind == "rope_base":
        return dataclasses.replace(cfg, rope_theta=cfg.rope_theta * remedy.factor), None
    if remedy.kind == "rope_scaling":
        p = remedy.context or context or cfg.max_positions
        scaling = RopeScaling(kind=remedy.scaling, factor=remedy.factor,
                              original_max_positions=None if remedy.scaling == "linear" else p)
        return dataclasses.replace(cfg, rope_scaling=scaling), None
    if remedy.kind == "sinks":
        if remedy.window is None:
            if cfg.mask != "sliding_window":
                return None, (f"mask {cfg.mask!r} already lets every query see keys 1..{remedy.sinks} (the prior "
                              "is unchanged); sinks act only with a window: use sinks:S:W")
            return dataclasses.replace(cfg, sinks=remedy.sinks), None
        if cfg.mask not in ("causal", "sliding_window"):
            return None, f"sinks:S:W needs a causal or sliding-window model, got mask {cfg.mask!r}"
        return dataclasses.replace(cfg, mask="sliding_window", window=remedy.window, sinks=remedy.sinks), None
    raise ValueError(f"remedy {remedy.label} changes the prompt, not the model")


def _same_mask(cfg, other, length: int) -> bool:
    """Whether the masks of ``cfg`` and ``other`` allow the same (query, key) pairs on ``length`` positions
    (a mask rule depends on (i, j) only, so this holds on every shorter sequence too)."""
    from ..masks.spec import MaskSpec
    from ..nn.masks import static_allowed_block

    span = (0, length)
    return bool(np.array_equal(static_allowed_block(MaskSpec.from_config(cfg), span, span),
                               static_allowed_block(MaskSpec.from_config(other), span, span)))


def _same_rope(cfg, other, length: int) -> bool:
    """Whether RoPE rotates identically under ``cfg`` and ``other`` on a sequence of ``length`` positions: the
    same frequencies (bit for bit, float32 as the model computes them) and the same attention factor."""
    import jax.numpy as jnp

    from ..nn.positions import rope_inv_freq

    if cfg.position != "rope":
        return True
    scale = lambda c: 1.0 if c.rope_scaling is None else c.rope_scaling.attention_scale  # noqa: E731
    freqs = [np.asarray(rope_inv_freq(c.resolved_head_dim, c.rope_theta, c.rope_scaling, jnp.float32, length))
             for c in (cfg, other)]
    return scale(cfg) == scale(other) and bool(np.array_equal(*freqs))


def noop_reason(remedy: Remedy, cfg, remedied, lengths) -> str | None:
    """Why model remedy ``remedy`` (config ``cfg`` -> ``remedied``) changes nothing on sequences of each of
    ``lengths`` positions, starting with :data:`NOOP`; None when it may change something (module docstring).

    Decided from the configs alone (the mask rule and the RoPE frequencies), never from a measured effect.
    """
    lengths = sorted({int(n) for n in lengths})
    longest = lengths[-1]
    kept = dataclasses.replace(remedied, **{name: getattr(cfg, name) for name in _MASK_AND_ROPE})
    if kept != cfg or not _same_mask(cfg, remedied, longest):
        return None
    if not all(_same_rope(cfg, remedied, n) for n in lengths):
        return None
    if remedy.kind == "sinks":
        sinks = f"{remedied.sinks} sink" + ("s" if remedied.sinks != 1 else "")
        why = (f"a window of {remedied.window} keys plus {sinks} covers all {longest} positions the model reads, "
               "so every query still sees every key it saw")
    elif remedy.factor == 1:
        why = "a factor of 1 leaves the RoPE frequencies unchanged"
    elif remedy.kind == "rope_scaling" and remedy.scaling == "dynamic":
        why = (f"dynamic scaling rescales only sequences longer than the original context "
               f"P = {remedied.rope_scaling.original_max_positions}, and the model reads at most {longest} positions")
    else:
        why = f"the mask and the RoPE frequencies on {longest} positions equal the unmodified model's"
    return f"{NOOP}: {why}"


def insert_markers(probes: ProbeSet, at, marker_ids) -> ProbeSet:
    """Every prompt with ``marker_ids`` inserted before index floor(r D) for each r in ``at``; D is the length
    of the prefix in which an example's k prompts differ (the common suffix, the question and the end of the
    last passage, stays whole); an index inside the fact moves to the fact's start.
    Shapes: [E, k, T] -> [E, k, T + len(at) len(marker_ids)]."""
    marker = [int(i) for i in marker_ids]
    if not marker:
        raise ValueError("marker must encode to at least one id")
    e_count, k, length = probes.prompts.shape
    doc_end = _document_end(probes)
    prompts = np.zeros((e_count, k, length + len(at) * len(marker)), np.int32)
    starts = probes.fact_start.copy()
    for e in range(e_count):
        for p in range(k):
            row, start = list(probes.prompts[e, p]), int(probes.fact_start[e, p])
            stop = start + int(probes.fact_length[e])
            points = [int(r * doc_end[e]) for r in at]
            points = [start if start < q < stop else q for q in points]
            for q in sorted(points, reverse=True):
                row[q:q] = marker
            prompts[e, p] = row
            starts[e, p] = start + len(marker) * sum(q <= start for q in points)
    return dataclasses.replace(probes, prompts=prompts, fact_start=starts)


def _document_end(probes: ProbeSet) -> np.ndarray:
    """[E] index where the question starts: the first position from which every prompt of the example agrees
    to the end (the question ids are identical across p; the passages are not)."""
    same = np.all(probes.prompts == probes.prompts[:, :1], axis=1)  # [E, T]
    ends = []
    for row in same:
        differs = np.flatnonzero(~row)
        ends.append(int(differs[-1]) + 1 if differs.size else row.size)
    return np.asarray(ends)


def reorder(probes: ProbeSet, place: str) -> ProbeSet:
    """Every prompt of an example replaced by the one with the fact in passage 1 ("first") or k ("last")."""
    p = 0 if place == "first" else probes.passages - 1
    k = probes.passages
    return dataclasses.replace(probes, prompts=np.repeat(probes.prompts[:, p:p + 1], k, axis=1),
                               fact_start=np.repeat(probes.fact_start[:, p:p + 1], k, axis=1))


def apply_remedy(remedy: Remedy, model, probes: ProbeSet, *, marker_ids=None, context: int | None = None) -> Applied:
    """The remedy applied to ``model`` (same weights) or to ``probes`` (module table).

    Args:
      remedy: a Remedy.
      model: an nn.Decoder.
      probes: the unmodified probe set.
      marker_ids: the marker's ids (markers only).
      context: the original context P for rope_scaling when the spec names none (None: max_positions).

    A model remedy that is a no-op at the probe's lengths comes back skipped, with its reason
    (:func:`noop_reason`; ``applied.noop``).
    """
    if remedy.kind == "markers":
        if marker_ids is None:
            raise ValueError("marker: the markers remedy needs a marker (a token id or a string)")
        return Applied(remedy, model, insert_markers(probes, remedy.at, marker_ids))
    if remedy.kind == "reorder":
        return Applied(remedy, model, reorder(probes, remedy.place))
    cfg, reason = remedied_config(remedy, model.cfg, context=context)
    if cfg is None:
        return Applied(remedy, model, probes, skipped=reason)
    noop = noop_reason(remedy, model.cfg, cfg, (probes.length, probes.positions_needed))
    if noop is not None:
        return Applied(remedy, model, probes, skipped=noop)
    return Applied(remedy, with_config(model, cfg), probes)


__all__ = ["Applied", "KINDS", "NOOP", "Remedy", "apply_remedy", "insert_markers", "is_noop", "noop_reason",
           "parse_remedy", "remedied_config", "reorder", "with_config"]
