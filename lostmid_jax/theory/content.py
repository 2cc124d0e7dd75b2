"""Alias: the Content prior lives in :mod:`lostmid_jax.masks.content` now."""

from ..masks.content import MASKS, Content  # noqa: F401
