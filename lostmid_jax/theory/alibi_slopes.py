"""Alias for one release: the ALiBi slope rule lives in :mod:`lostmid_jax.masks.alibi_slopes`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
