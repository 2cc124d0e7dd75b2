"""Qwen3 (Qwen3ForCausalLM): config.json <-> DecoderConfig; Llama-style (nn/hf/llama.py), Qwen2's tensor
names plus per-head q/k RMSNorms.

Qwen3's own keys: q/k RMSNorm per head (qk_norm), head_dim (default 128,
independent of D), attention_bias.

Refused (ValueError naming the key): those of nn/hf/llama.py, and
use_sliding_window=true or layer_types other than all "full_attention"
(sliding layers above max_window_layers).

Tensors: Qwen2's (nn/hf/qwen2.py) and

    layers.l.self_attn.{q,k}_norm.weight [Dh]          <- blocks.attn.{q,k}_norm.scale[l]
"""

from __future__ import annotations

from ..config import DecoderConfig
from . import llama, qwen2

FAMILY = "qwen3"
PREFIX = qwen2.PREFIX
ARCHITECTURE = "Qwen3ForCausalLM"
# transformers' defaults for keys a config.json may omit.
DEFAULTS = dict(num_key_value_heads=32, head_dim=128, rms_norm_eps=1e-6, max_position_embeddings=32768,
                tie_word_embeddings=False, attention_bias=False)
HANDLED_KEYS = llama.LLAMA_STYLE_KEYS | {"attention_bias", "use_sliding_window", "layer_types"}
# attention_dropout: training only; sliding_window, max_window_layers: used only with sliding layers (refused)
IGNORED_KEYS = frozenset({"attention_dropout", "sliding_window", "max_window_layers"})
QK_NORMS = {"self_attn.q_norm": ("attn", "q_norm"), "self_attn.k_norm": ("attn", "k_norm")}


def config_from_hf(raw: dict, param_dtype: str) -> DecoderConfig:
    """The DecoderConfig of a Qwen3 config.json (ValueError naming a missing or refused key)."""
    if raw.get("use_sliding_window", False):
        raise ValueError("config.json use_sliding_window=true is not supported for qwen3 "
                         "(sliding layers above max_window_layers)")
    layer_types = raw.get("layer_types")
    if layer_types is not None and any(t != "full_attention" for t in layer_types):
        raise ValueError(f"config.json layer_types={layer_types!r} is not supported for qwen3 "
                         f"(only 'full_attention' layers)")
    bias = bool(raw.get("attention_bias", DEFAULTS["attention_bias"]))
    return llama.llama_style_config(raw, FAMILY, DEFAULTS, param_dtype, mask="causal", qkv_bias=bias,
                                    out_bias=bias, mlp_bias=False, qk_norm=True)


def mismatches(cfg: DecoderConfig) -> list[str]:
    """The fields that keep ``cfg`` from being exported as Qwen3 (empty: it can be)."""
    out = llama.causal_mismatches(cfg, qk_norm=True)
    if cfg.mlp_bias:
        out.append("mlp_bias=True (needs False)")
    return out


def config_to_hf(cfg: DecoderConfig) -> dict:
    """The config.json dict (without dtype keys) describing ``cfg`` for Qwen3ForCausalLM."""
    return dict(llama.llama_style_to_hf(FAMILY, ARCHITECTURE, cfg), attention_bias=cfg.qkv_bias,
                use_sliding_window=False, sliding_window=None, max_window_layers=cfg.depth,
                layer_types=["full_attention"] * cfg.depth)


def to_hf(p: dict, depth: int, xp, *, heads: int | None = None) -> dict:
    """Qwen2's state dict plus the q/k norms (:func:`nn.hf.qwen2.to_hf`)."""
    return qwen2.to_hf(p, depth, xp, extra_norms=QK_NORMS)


def from_hf(t: dict, paths, depth: int, xp, *, heads: int | None = None) -> dict:
    """Our flat params from Qwen3's state dict (:func:`nn.hf.qwen2.from_hf` plus the q/k norms)."""
    return qwen2.from_hf(t, paths, depth, xp, extra_norms=QK_NORMS)
