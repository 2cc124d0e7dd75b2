"""Alias for one release: the Content prior lives in :mod:`lostmid_jax.masks.content`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
