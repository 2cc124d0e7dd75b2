"""The theory prior of a model: the Step-0 attention matrix A its config implies.

At initialization query-key scores are ~0, so every attention kind
("softmax", "uniform", "linear-value") attends uniformly over the keys its
mask allows, plus any score bias that does not depend on the weights (ALiBi,
for softmax attention). :func:`prior_for` names that matrix as a
:mod:`lostmid_jax.theory` prior, so a model is compared with its own prior:

=================================  ==========================================
model (DecoderConfig)              theory prior
=================================  ==========================================
mask "causal"                      Causal()
mask "bidirectional"               Bidirectional()
mask "sliding_window", window w    SlidingWindow(w)
mask "prefix_lm", prefix n         PrefixLM(min(n, L))   (n >= L: all keys)
mask "document"                    Chunks(document lengths)  (``doc_length``)
softmax + position "alibi"         ALiBi(N) with the model's slopes
                                   m_h = 2^(-8 h / N), h = 1..N query heads
=================================  ==========================================

RoPE, learned and no position encoding leave the Step-0 matrix uniform; so
does ALiBi under "uniform" / "linear-value" attention (no scores). The theory
ALiBi prior is causal: with another mask it is available only where that mask
equals the causal one at this L (one document, a window of at least L, a
prefix of at most 1); otherwise :func:`prior_for` raises. Reads only the
config's architecture fields (attention, mask, window, prefix, position,
heads); imports no jax.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import theory
from ..validation import check_int, check_optional_int


def prior_for(cfg, length: int | None = None, *, doc_length: int | Sequence[int] | None = None):
    """The Step-0 theory prior of decoder config ``cfg`` (see the module table).

    Args:
      cfg: an nn.DecoderConfig (or any object with its ``attention``,
        ``mask``, ``window``, ``prefix``, ``position`` and ``heads``).
      length: L; when given, the prior is validated for it (``check_prior``).
        Needed for ``doc_length`` as one int, and to resolve a prefix longer
        than L or ALiBi under a mask that equals causal at this L.
      doc_length: mask "document" only: an int N (documents of N tokens from
        position 1, the last one shorter if N does not divide L) or the
        sequence of document lengths (summing to L).

    Returns:
      A prior of :mod:`lostmid_jax.theory.priors`.

    Raises:
      ValueError: naming the argument, for a "document" mask without
        ``doc_length``, ``doc_length`` with another mask, an int
        ``doc_length`` without ``length``, or ALiBi with a mask the theory
        has no prior for.

    >>> from lostmid_jax.nn.config import DecoderConfig
    >>> prior_for(DecoderConfig(mask="sliding_window", window=64))
    SlidingWindow(width=64)
    >>> prior_for(DecoderConfig(mask="document"), 10, doc_length=4)
    Chunks(lengths=(4, 4, 2))
    >>> prior_for(DecoderConfig(heads=4, position="alibi"))
    ALiBi(n_heads=4, slopes=None)
    """
    length = check_optional_int("length", length, 1)
    kind = cfg.mask
    if doc_length is not None and kind != "document":
        raise ValueError(f"doc_length is only used with mask='document', got mask={kind!r}")
    prior = _mask_prior(cfg, kind, length, doc_length)
    if cfg.position == "alibi" and cfg.attention == "softmax":
        prior = _alibi_prior(cfg, prior, length)
    return prior if length is None else theory.check_prior(prior, length)


def _mask_prior(cfg, kind: str, length: int | None, doc_length):
    """The uniform prior of the mask alone."""
    if kind == "causal":
        return theory.Causal()
    if kind == "bidirectional":
        return theory.Bidirectional()
    if kind == "sliding_window":
        return theory.SlidingWindow(cfg.window)
    if kind == "prefix_lm":
        return theory.PrefixLM(cfg.prefix if length is None else min(cfg.prefix, length))
    if kind == "document":
        return _documents(doc_length, length)
    raise ValueError(f"mask must be one of causal, bidirectional, sliding_window, prefix_lm, document; got {kind!r}")


def _documents(doc_length, length: int | None):
    if doc_length is None:
        raise ValueError("mask='document' needs doc_length (an int N: documents of N tokens; or the "
                         "document lengths), since segment ids are given only at call time")
    if isinstance(doc_length, (str, bytes)) or not hasattr(doc_length, "__iter__"):
        size = check_int("doc_length", doc_length, 1)
        if length is None:
            raise ValueError("doc_length as one int needs length (the documents of N tokens cover L)")
        return theory.Chunks.equal(length, size)
    return theory.Chunks(tuple(doc_length))


def _alibi_prior(cfg, mask_prior, length: int | None):
    """ALiBi(heads) where the mask is causal at this L; else a ValueError."""
    causal_here = isinstance(mask_prior, theory.Causal) or (
        isinstance(mask_prior, theory.PrefixLM) and mask_prior.prefix <= 1) or (
        length is not None and isinstance(mask_prior, theory.SlidingWindow) and mask_prior.width >= length) or (
        length is not None and isinstance(mask_prior, theory.Chunks) and mask_prior.lengths == (length,))
    if not causal_here:
        raise ValueError(f"position='alibi' with mask={cfg.mask!r} has no theory prior (theory.ALiBi is causal; "
                         f"its Step-0 matrix here would be {mask_prior.label} with ALiBi weights)")
    return theory.ALiBi(cfg.heads)  # slopes None: the standard 2^(-8 h / N), as nn.alibi_slopes
