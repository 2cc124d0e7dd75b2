"""Alias for one release: a verdict read as a claims table lives in :mod:`lostmid_jax.present.verdict_table`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
