"""Alias: MaskSpec and MASK_KINDS live in :mod:`lostmid_jax.masks.spec` now."""

from ..masks.spec import MASK_KINDS, MaskSpec, mask_of  # noqa: F401
