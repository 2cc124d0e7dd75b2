"""Mistral (MistralForCausalLM): config.json <-> DecoderConfig; Llama-style (nn/hf/llama.py), Qwen2's tensor names.

Mistral's own keys: sliding_window (w: mask "sliding_window" with window w,
query i sees i - w < j <= i; null: causal; missing: 4096, transformers'
default); head_dim may differ from D / N (Mistral-Nemo); no biases.

Refused (ValueError naming the key): those of nn/hf/llama.py, and
layer_types (alternating sliding / full layers: Ministral).
"""

from __future__ import annotations

from ..config import DecoderConfig
from . import llama, qwen2

FAMILY = "mistral"
PREFIX = qwen2.PREFIX
ARCHITECTURE = "MistralForCausalLM"
# transformers' defaults for keys a config.json may omit.
DEFAULTS = dict(num_key_value_heads=8, head_dim=None, rms_norm_eps=1e-6, max_position_embeddings=131072,
                tie_word_embeddings=False, sliding_window=4096)

HANDLED_KEYS = llama.LLAMA_STYLE_KEYS | {"sliding_window", "layer_types"}
IGNORED_KEYS = frozenset({"attention_dropout"})  # training only

to_hf = qwen2.to_hf
from_hf = qwen2.from_hf


def config_from_hf(raw: dict, param_dtype: str) -> DecoderConfig:
    """The DecoderConfig of a Mistral config.json (ValueError naming a missing or refused key)."""
    if raw.get("layer_types") is not None:
        raise ValueError("config.json layer_types (alternating sliding / full attention layers) is not supported "
                         "for mistral")
    window = raw.get("sliding_window", DEFAULTS["sliding_window"])
    mask = dict(mask="causal") if window is None else dict(mask="sliding_window", window=window)
    return llama.llama_style_config(raw, FAMILY, DEFAULTS, param_dtype, qkv_bias=False, out_bias=False,
                                    mlp_bias=False, qk_norm=False, **mask)


def mismatches(cfg: DecoderConfig) -> list[str]:
    """The fields that keep ``cfg`` from being exported as Mistral (empty: it can be)."""
    out = llama.llama_style_mismatches(cfg)
    if cfg.mask not in ("causal", "sliding_window"):
        out.append(f"mask={cfg.mask!r} (needs 'causal' or 'sliding_window')")
    out += [f"{k}=True (needs False)" for k in ("qkv_bias", "out_bias", "mlp_bias", "qk_norm") if getattr(cfg, k)]
    return out


def config_to_hf(cfg: DecoderConfig) -> dict:
    """The config.json dict (without dtype keys) describing ``cfg`` for MistralForCausalLM."""
    return dict(llama.llama_style_to_hf(FAMILY, ARCHITECTURE, cfg),
                sliding_window=cfg.window if cfg.mask == "sliding_window" else None)
