"""Alias for one release: MaskSpec and MASK_KINDS live in :mod:`lostmid_jax.masks.spec`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
