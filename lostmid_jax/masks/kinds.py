"""Every prior kind, and the one validation of a prior against L."""

from __future__ import annotations

from ..validation import check_int_like
from .alibi import ALiBi
from .base import Prior
from .causal import Bidirectional, Causal
from .chunks import Chunks
from .content import MASKS, Content
from .prefix import PrefixLM
from .window import SlidingWindow, Sinks

PRIORS = (Causal, Bidirectional, SlidingWindow, Chunks, PrefixLM, Sinks, ALiBi)
"""The priors of fixed weights; :class:`.content.Content` is accepted too (see :func:`check_prior`)."""

__all__ = ["MASKS", "PRIORS", "causal_here", "check_prior"]


def check_prior(prior, length: int):
    """Validate ``prior`` for a sequence of ``length`` positions; return it.

    Accepts :data:`PRIORS` and :class:`.content.Content` (whose mask is
    checked the same way and whose ``scores`` must hold L values).

    Raises:
      ValueError: naming the argument, if ``prior`` is not one of these or
        does not fit L (Chunks ``lengths`` not summing to L, ``prefix`` > L,
        ``sinks`` > L, ``scores`` not of length L).
    """
    length = check_int_like("length", length, 1)
    if not isinstance(prior, Prior):  # the one type check; each kind checks its own fields
        names = ", ".join(p.__name__ for p in PRIORS + (Content,))
        raise ValueError(f"prior must be one of {names}, got {prior!r}")
    return prior.check(length)


def causal_here(prior, length: int | None = None) -> bool:
    """Whether mask prior ``prior`` allows exactly the causal keys (at L = ``length`` where that matters).

    Causal, PrefixLM(<= 1), Sinks without a window; with ``length``: a window >= L
    (SlidingWindow, Sinks) or one chunk of L. :meth:`.base.Prior.causal_at`.
    """
    return prior.causal_at(length)
