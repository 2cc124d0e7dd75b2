"""Alias for one release: profile metrics live in :mod:`lostmid_jax.stats.profile_metrics` (mean_se: :func:`lostmid_jax.stats.intervals.mean_sem`)."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
