"""Alias for one release: BLOOM and MPT now live in lostmid_jax.nn.hf.bloom / .mpt."""

from __future__ import annotations

from .config import DecoderConfig
from .hf import families
from .hf.families import ALIBI_FAMILIES as FAMILIES
from .hf.families import alibi_family_of as family_of  # noqa: F401

PREFIX = {f: families.MODULES[f].PREFIX for f in FAMILIES}
EMBEDDING = {f: families.MODULES[f].EMBEDDING for f in FAMILIES}
FIXED = {f: families.MODULES[f].FIXED for f in FAMILIES}


def config_from_hf(family: str, raw: dict, param_dtype: str) -> DecoderConfig:
    return families.MODULES[family].config_from_hf(raw, param_dtype)


def config_to_hf(cfg: DecoderConfig, family: str) -> dict:
    return families.MODULES[family].config_to_hf(cfg)


def to_hf(family: str, p: dict, depth: int, heads: int, xp) -> dict:
    return families.MODULES[family].to_hf(p, depth, xp, heads=heads)


def from_hf(family: str, t: dict, paths, depth: int, heads: int, xp) -> dict:
    return families.MODULES[family].from_hf(t, paths, depth, xp, heads=heads)
