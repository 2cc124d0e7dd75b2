"""Alias for one release: the resource limits live in :mod:`lostmid_jax.resources`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
