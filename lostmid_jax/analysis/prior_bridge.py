"""The theory prior of a model: the Step-0 attention matrix A its config implies.

At initialization query-key scores are ~0, so every attention kind
("softmax", "uniform", "linear-value") attends uniformly over the keys its
mask allows, plus any score bias that does not depend on the weights (ALiBi,
for softmax attention). :func:`prior_for` names that matrix as a
:mod:`lostmid_jax.theory` prior, so a model is compared with its own prior:

=====================================  =======================================
model (DecoderConfig)                  theory prior
=====================================  =======================================
mask "causal"                          Causal()
mask "bidirectional"                   Bidirectional()
mask "sliding_window", window w        SlidingWindow(w)
  with sinks s >= 1                    Sinks(s, w)   (keys 1..s always seen)
mask "prefix_lm", prefix n             PrefixLM(min(n, L))   (n >= L: all keys)
mask "document"                        Chunks(document lengths)  (``doc_length``)
sinks with causal / prefix_lm /        the mask's prior (the sinks are keys
  bidirectional                        those masks already allow)
softmax + position "alibi",            ALiBi(N, rule=cfg.alibi_rule) where the
  N query heads                        mask is causal at this L (O(L)); else
                                       Content(mask prior, heads=N,
                                       slopes=rule) (bias -m |i - j| inside
                                       the mask; O(L) rows, dense only
                                       for prefix_lm)
``content=True`` (softmax, a model)    Content(mask prior, heads=N, diag, base
                                       per layer and head measured from the
                                       model, ALiBi slopes if any):
                                       :mod:`.content_scores`
=====================================  =======================================

RoPE, learned and no position encoding leave the Step-0 matrix uniform; so
does ALiBi under "uniform" / "linear-value" attention (no scores). Reads only
the config's architecture fields (attention, mask, window, prefix, sinks,
position, alibi_rule, heads); imports no jax unless ``content=True``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import theory
from ..masks import ALiBi, Chunks, Content, mask_of
from ..validation import check_bool, check_int, check_optional_int


def prior_for(cfg, length: int | None = None, *, doc_length: int | Sequence[int] | None = None,
              model=None, content: bool = False, samples: int = 2, seed: int = 0):
    """The Step-0 theory prior of decoder config ``cfg`` (see the module table).

    Args:
      cfg: an nn.DecoderConfig (or any object with its ``attention``,
        ``mask``, ``window``, ``prefix``, ``position`` and ``heads``;
        ``sinks`` and ``alibi_rule`` default to 0 and "alibi").
      length: L; when given, the prior is validated for it (``check_prior``).
        Needed for ``doc_length`` as one int, to resolve a prefix longer
        than L or ALiBi under a mask that equals causal at this L, and for
        ``content=True``.
      doc_length: mask "document" only: an int N (documents of N tokens from
        position 1, the last one shorter if N does not divide L) or the
        sequence of document lengths (summing to L).
      model: the nn.Decoder of ``cfg`` whose content scores ``content=True`` measures.
      content: measure the model's mean self bonus and off-diagonal score per
        layer and head at Step 0 (:mod:`.content_scores`, ``samples`` N(0, 1)
        inputs from ``seed``) and return the Content prior they give.

    Returns:
      A prior of :mod:`lostmid_jax.theory` (priors or Content).

    Raises:
      ValueError: naming the argument, for a "document" mask without
        ``doc_length``, ``doc_length`` with another mask, an int
        ``doc_length`` without ``length``, or ``content=True`` without a
        model of this config, a length, softmax attention, or with a
        "document" mask.

    >>> from lostmid_jax.nn.config import DecoderConfig
    >>> prior_for(DecoderConfig(mask="sliding_window", window=64))
    SlidingWindow(window=64)
    >>> prior_for(DecoderConfig(mask="sliding_window", window=64, sinks=4))
    Sinks(sinks=4, window=64)
    >>> prior_for(DecoderConfig(mask="document"), 10, doc_length=4)
    Chunks(lengths=(4, 4, 2))
    >>> prior_for(DecoderConfig(heads=4, position="alibi"))
    ALiBi(n_heads=4, slopes=None, rule='alibi')
    """
    length = check_optional_int("length", length, 1)
    content = check_bool("content", content)
    kind = cfg.mask
    if doc_length is not None and kind != "document":
        raise ValueError(f"doc_length is only used with mask='document', got mask={kind!r}")
    prior = _mask_prior(cfg, kind, length, doc_length)
    if content:
        return _content(cfg, prior, length, model, samples, seed)
    if cfg.position == "alibi" and cfg.attention == "softmax":
        prior = _alibi_prior(cfg, prior, length)
    return prior if length is None else theory.check_prior(prior, length)


def _mask_prior(cfg, kind: str, length: int | None, doc_length):
    """The uniform prior of the mask alone (with its sinks): the config's mask class (``masks.mask_of``),
    with the sink count and the prefix clipped to L and the documents given by ``doc_length``."""
    sinks, prefix = getattr(cfg, "sinks", 0) or 0, cfg.prefix
    if length is not None:
        sinks, prefix = min(sinks, length), None if prefix is None else min(prefix, length)
    lengths = _documents(doc_length, length) if kind == "document" else None
    return mask_of(kind, window=cfg.window, prefix=prefix, sinks=sinks, lengths=lengths)


def _documents(doc_length, length: int | None):
    if doc_length is None:
        raise ValueError("mask='document' needs doc_length (an int N: documents of N tokens; or the "
                         "document lengths), since segment ids are given only at call time")
    if isinstance(doc_length, (str, bytes)) or not hasattr(doc_length, "__iter__"):
        size = check_int("doc_length", doc_length, 1)
        if length is None:
            raise ValueError("doc_length as one int needs length (the documents of N tokens cover L)")
        return Chunks.equal(length, size).lengths
    return tuple(doc_length)


def _alibi_prior(cfg, mask_prior, length: int | None):
    """ALiBi(heads, rule) where the mask is causal at this L; else Content with the ALiBi slopes over the mask."""
    rule = getattr(cfg, "alibi_rule", "alibi")
    if mask_prior.causal_at(length):
        return ALiBi(cfg.heads, rule=rule)  # the slopes of nn.alibi_slopes(heads, rule)
    return Content(mask=mask_prior, heads=cfg.heads, slopes=rule)


def _content(cfg, mask_prior, length: int | None, model, samples: int, seed: int):
    """Content prior with the model's measured per-layer, per-head scores."""
    from .content_scores import content_prior, measure_scores

    if model is None or getattr(model, "cfg", None) != cfg:
        raise ValueError("content=True needs model, the nn.Decoder of this cfg, to measure its scores")
    if length is None:
        raise ValueError("content=True needs length (the scores are measured at L positions)")
    if cfg.attention != "softmax":
        raise ValueError(f"content=True needs attention='softmax' (scores to measure), got {cfg.attention!r}")
    if cfg.mask == "document":
        raise ValueError("content=True is not available with mask='document' (measured without segment ids)")
    mask_prior = theory.check_prior(mask_prior, length)
    scores = measure_scores(model, mask_prior, length, samples=samples, seed=seed)
    return theory.check_prior(content_prior(cfg, mask_prior, scores), length)
