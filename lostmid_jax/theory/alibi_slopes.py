"""Alias: the ALiBi slope rule lives in :mod:`lostmid_jax.masks.alibi_slopes` now."""

from ..masks.alibi_slopes import SLOPE_RULES, float_slopes, slope_exponents  # noqa: F401
