"""Alias for one release: hub ids in the local cache live in :mod:`lostmid_jax.nn.hf.hub`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
