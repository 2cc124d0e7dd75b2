"""Alias for one release: the summary over seeds of a model's units lives in :mod:`lostmid_jax.analysis.seed_summary`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
