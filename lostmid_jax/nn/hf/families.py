"""The family registry: a parsed config.json or a DecoderConfig -> its family module.

Each family module (gpt2, qwen2, bloom, mpt, llama, mistral, qwen3) defines
FAMILY, PREFIX (of its tensor names), HANDLED_KEYS and IGNORED_KEYS (the
config.json keys it reads and those it knowingly ignores: nn/hf/keys.py refuses
any other at a non-default value), config_from_hf(raw, param_dtype),
mismatches(cfg), config_to_hf(cfg), to_hf(p, depth, xp, heads=) and
from_hf(t, paths, depth, xp, heads=).
"""

from __future__ import annotations

from ..config import DecoderConfig
from . import bloom, gpt2, llama, mistral, mpt, qwen2, qwen3
from .common import check_types
from .keys import check_keys

MODULES = {m.FAMILY: m for m in (gpt2, qwen2, bloom, mpt, llama, mistral, qwen3)}
FAMILIES = tuple(MODULES)
ALIBI_FAMILIES = ("bloom", "mpt")
ROPE_FAMILIES = ("llama", "mistral", "qwen3")  # Llama-style (nn/hf/llama.py)
PREFIX = {family: m.PREFIX for family, m in MODULES.items()}
# Buffers some checkpoints carry that hold no parameters (causal masks, RoPE tables).
IGNORED_SUFFIXES = (".attn.bias", ".attn.masked_bias", ".rotary_emb.inv_freq")


def config_from_hf(raw: dict, *, param_dtype: str = "float32") -> tuple[str, DecoderConfig]:
    """(family, DecoderConfig) from a parsed config.json.

    Raises:
      ValueError: unknown ``model_type`` (named), a missing key, or an
        unsupported variant.
    """
    family = raw.get("model_type")
    if family in FAMILIES:
        module = MODULES[family]
        check_keys(raw, family, module.HANDLED_KEYS, module.IGNORED_KEYS)
        return family, module.config_from_hf(check_types(raw), param_dtype)
    raise ValueError(f"config.json model_type={family!r} is not supported (expected one of {FAMILIES})")


def first_match(cfg: DecoderConfig, families) -> tuple[str | None, dict[str, list[str]]]:
    """(the first of ``families`` that ``cfg`` matches or None, {family: mismatches})."""
    problems = {family: MODULES[family].mismatches(cfg) for family in families}
    return next((f for f in families if not problems[f]), None), problems


def alibi_family_of(cfg: DecoderConfig) -> str:
    """"bloom" or "mpt" for an ALiBi DecoderConfig (ValueError listing what keeps it from either)."""
    family, problems = first_match(cfg, ALIBI_FAMILIES)
    if family is not None:
        return family
    raise ValueError(f"cfg has position='alibi', used only by BLOOM and MPT, and matches neither "
                     f"BLOOM ({', '.join(problems['bloom'])}) "
                     f"nor MPT ({', '.join(problems['mpt'])})")


def family_of(cfg: DecoderConfig) -> str:
    """The family (one of FAMILIES) whose architecture ``cfg`` matches exactly: the first
    of gpt2, qwen2, llama, mistral, qwen3 (ALiBi configs: bloom / mpt).

    Raises:
      ValueError: listing the fields that keep ``cfg`` from each family.
    """
    if cfg.vocab_size is None:
        raise ValueError("cfg.vocab_size must be set to export a Hugging Face checkpoint")
    if cfg.position == "alibi":  # only BLOOM and MPT use ALiBi
        return alibi_family_of(cfg)
    if cfg.embed_norm:  # only BLOOM normalizes the input embeddings
        raise ValueError("cfg.embed_norm=True matches no family but BLOOM (which has position='alibi')")
    family, problems = first_match(cfg, ("gpt2", "qwen2") + ROPE_FAMILIES)
    if family is not None:
        return family
    text = ", ".join(f"{f} ({', '.join(m)})" for f, m in problems.items())
    raise ValueError(f"cfg matches no family: {text}")


def config_to_hf(cfg: DecoderConfig, *, dtype: str) -> tuple[str, dict]:
    """(family, config.json dict) describing ``cfg`` for the family's transformers class."""
    family = family_of(cfg)
    raw = MODULES[family].config_to_hf(cfg)
    raw.update(torch_dtype=dtype, dtype=dtype)
    return family, raw


def to_hf(family: str, p: dict, depth: int, xp, *, heads: int | None = None) -> dict:
    """HF state dict {name (with the family's prefix): array} from our flat params ``p``
    (``heads``: the query heads, needed by BLOOM's per-head fused qkv)."""
    return MODULES[family].to_hf(p, depth, xp, heads=heads)


def from_hf(family: str, t: dict, paths, depth: int, xp, *, heads: int | None = None) -> dict:
    """Our flat params {path: array} for the wanted ``paths`` from a checked HF state dict ``t``
    (exactly the names :func:`to_hf` produces, with matching shapes)."""
    return MODULES[family].from_hf(t, paths, depth, xp, heads=heads)
