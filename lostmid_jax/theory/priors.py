"""Alias: the prior classes live in :mod:`lostmid_jax.masks` now (one file per kind; see its table)."""

from ..masks import (PRIORS, ALiBi, Bidirectional, Causal, Chunks, PrefixLM, SlidingWindow, Sinks,  # noqa: F401
                     causal_here, check_prior, check_slopes)
from ..masks._checks import check_segments as _check_segments  # noqa: F401
from ..masks._checks import size as _size  # noqa: F401
