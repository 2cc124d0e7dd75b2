"""Alias for one release: BLOOM and MPT live in :mod:`lostmid_jax.nn.hf.bloom` and ``.mpt`` (:mod:`lostmid_jax.nn.hf.families`)."""

from __future__ import annotations

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)

from .hf import families  # noqa: E402  (after the warning)

PREFIX = {f: families.MODULES[f].PREFIX for f in families.ALIBI_FAMILIES}
EMBEDDING = {f: families.MODULES[f].EMBEDDING for f in families.ALIBI_FAMILIES}
FIXED = {f: families.MODULES[f].FIXED for f in families.ALIBI_FAMILIES}


def config_from_hf(family: str, raw: dict, param_dtype: str):
    """Deprecated: ``families.MODULES[family].config_from_hf(raw, param_dtype)``."""
    return families.MODULES[family].config_from_hf(raw, param_dtype)


def config_to_hf(cfg, family: str) -> dict:
    """Deprecated: ``families.MODULES[family].config_to_hf(cfg)``."""
    return families.MODULES[family].config_to_hf(cfg)


def to_hf(family: str, p: dict, depth: int, heads: int, xp) -> dict:
    """Deprecated: ``families.MODULES[family].to_hf(p, depth, xp, heads=heads)``."""
    return families.MODULES[family].to_hf(p, depth, xp, heads=heads)


def from_hf(family: str, t: dict, paths, depth: int, heads: int, xp) -> dict:
    """Deprecated: ``families.MODULES[family].from_hf(t, paths, depth, xp, heads=heads)``."""
    return families.MODULES[family].from_hf(t, paths, depth, xp, heads=heads)
