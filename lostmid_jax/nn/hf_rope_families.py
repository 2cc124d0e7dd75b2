"""Alias for one release: Llama, Mistral and Qwen3 now live in lostmid_jax.nn.hf.llama / .mistral / .qwen3."""

from __future__ import annotations

from .config import DecoderConfig
from .hf import families
from .hf.families import ROPE_FAMILIES as FAMILIES
from .hf.llama import ROPE_TYPES, rope_from_hf  # noqa: F401

ARCHITECTURES = {f: families.MODULES[f].ARCHITECTURE for f in FAMILIES}


def config_from_hf(family: str, raw: dict, param_dtype: str) -> DecoderConfig:
    return families.MODULES[family].config_from_hf(raw, param_dtype)


def mismatches(cfg: DecoderConfig, family: str) -> list[str]:
    return families.MODULES[family].mismatches(cfg)


def family_of(cfg: DecoderConfig) -> tuple[str | None, dict[str, list[str]]]:
    return families.first_match(cfg, FAMILIES)


def config_to_hf(family: str, cfg: DecoderConfig) -> dict:
    return families.MODULES[family].config_to_hf(cfg)
