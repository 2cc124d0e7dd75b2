"""Alias for one release: Llama, Mistral and Qwen3 live in :mod:`lostmid_jax.nn.hf.llama`, ``.mistral``, ``.qwen3`` (:mod:`lostmid_jax.nn.hf.families`)."""

from __future__ import annotations

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)

from .hf import families  # noqa: E402  (after the warning)

ARCHITECTURES = {f: families.MODULES[f].ARCHITECTURE for f in families.ROPE_FAMILIES}


def config_from_hf(family: str, raw: dict, param_dtype: str):
    """Deprecated: ``families.MODULES[family].config_from_hf(raw, param_dtype)``."""
    return families.MODULES[family].config_from_hf(raw, param_dtype)


def mismatches(cfg, family: str) -> list[str]:
    """Deprecated: ``families.MODULES[family].mismatches(cfg)``."""
    return families.MODULES[family].mismatches(cfg)


def family_of(cfg) -> tuple[str | None, dict[str, list[str]]]:
    """Deprecated: ``families.first_match(cfg, families.ROPE_FAMILIES)``."""
    return families.first_match(cfg, families.ROPE_FAMILIES)


def config_to_hf(family: str, cfg) -> dict:
    """Deprecated: ``families.MODULES[family].config_to_hf(cfg)``."""
    return families.MODULES[family].config_to_hf(cfg)
