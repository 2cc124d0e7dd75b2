"""Alias for one release: the prior classes live in :mod:`lostmid_jax.masks` (one file per kind)."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
