"""Alias for one release: the atomic writer (below every package, so kernel builders may use it) lives in :mod:`lostmid_jax.atomic`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
