"""Llama (LlamaForCausalLM): config.json <-> DecoderConfig, and what Mistral and Qwen3 share with it.

Llama, Mistral and Qwen3 are pre-norm RMSNorm decoders with RoPE, grouped-query
attention and a SwiGLU MLP, stored under Qwen2's tensor names (nn/hf/qwen2.py).

Keys read (every one of the three): num_hidden_layers (H), hidden_size (D),
num_attention_heads, num_key_value_heads, head_dim, intermediate_size,
rms_norm_eps, max_position_embeddings, vocab_size, tie_word_embeddings,
hidden_act ("silu"), initializer_range, and the RoPE keys (nn/hf/rope.py:
rope_type "default", "linear", "dynamic", "llama3" or "yarn").
A missing key takes transformers' default for the family (each module's DEFAULTS).

Llama's own keys: attention_bias (q, k, v and o biases), mlp_bias.

Refused (ValueError naming the key): hidden_act other than "silu"; the RoPE
keys nn/hf/rope.py refuses (longrope, partial_rotary_factor != 1, per-layer types).

Export (nn/hf/families.family_of): a config matching several families is
written as the first of Llama, Mistral, Qwen3 (a Mistral without a window is a Llama).
"""

from __future__ import annotations

from ..config import DecoderConfig
from . import qwen2
from .rope import ROPE_KEYS, ROPE_TYPES, mismatches as rope_mismatches, rope_from_hf, rope_parameters
from .common import fixed_mismatches, head_dim, require

FAMILY = "llama"
PREFIX = qwen2.PREFIX
ARCHITECTURE = "LlamaForCausalLM"
# transformers' defaults for keys a config.json may omit.
DEFAULTS = dict(num_key_value_heads=None, head_dim=None, rms_norm_eps=1e-6, max_position_embeddings=2048,
                tie_word_embeddings=False, attention_bias=False, mlp_bias=False)
# config.json keys every Llama-style family reads (llama_style_config), and those each ignores.
LLAMA_STYLE_KEYS = frozenset({"num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads",
                              "head_dim", "intermediate_size", "rms_norm_eps", "max_position_embeddings",
                              "vocab_size", "tie_word_embeddings", "hidden_act", "initializer_range"}) | ROPE_KEYS
HANDLED_KEYS = LLAMA_STYLE_KEYS | {"attention_bias", "mlp_bias"}
# attention_dropout: training only; pretraining_tp: transformers 4 sliced the projections (the same function)
IGNORED_KEYS = frozenset({"attention_dropout", "pretraining_tp"})
# Fields every exported Llama / Mistral / Qwen3 config must have.
FIXED = dict(attention="softmax", position="rope", norm="rmsnorm", pre_norm=True, final_norm=True,
             mlp="swiglu", residual=True, attn_mix=None, sinks=0)

to_hf = qwen2.to_hf
from_hf = qwen2.from_hf


def llama_style_config(raw: dict, family: str, defaults: dict, param_dtype: str, **fields) -> DecoderConfig:
    """The DecoderConfig of a Llama-style ``family`` config.json; ``defaults``: the family's
    transformers defaults; ``fields``: the family's own DecoderConfig fields."""
    if raw.get("hidden_act", "silu") != "silu":
        raise ValueError(f"config.json hidden_act={raw['hidden_act']!r} is not supported (expected 'silu')")
    theta, scaling = rope_from_hf(raw)
    get = lambda key: raw.get(key, defaults.get(key))  # noqa: E731
    return DecoderConfig(
        depth=require(raw, "num_hidden_layers", family), width=require(raw, "hidden_size", family),
        heads=require(raw, "num_attention_heads", family),
        kv_heads=get("num_key_value_heads"), head_dim=head_dim(raw, defaults.get("head_dim")),
        mlp_width=require(raw, "intermediate_size", family),
        norm_eps=float(get("rms_norm_eps")), rope_theta=theta, rope_scaling=scaling,
        max_positions=int(get("max_position_embeddings")),
        vocab_size=require(raw, "vocab_size", family),
        tie_embeddings=bool(get("tie_word_embeddings")),
        init="normal", init_std=float(raw.get("initializer_range", 0.02)),
        param_dtype=param_dtype, **FIXED, **fields,
    )


def llama_style_mismatches(cfg: DecoderConfig) -> list[str]:
    """What keeps ``cfg`` from every Llama-style family (FIXED, embed_norm, width divisible by heads)."""
    out = fixed_mismatches(cfg, FIXED) + rope_mismatches(cfg)
    if getattr(cfg, "embed_norm", False):
        out.append("embed_norm=True (needs False)")
    if cfg.width % cfg.heads:
        out.append(f"width={cfg.width} not divisible by heads={cfg.heads} (transformers requires it)")
    return out


def causal_mismatches(cfg: DecoderConfig, *, qk_norm: bool) -> list[str]:
    """Llama's and Qwen3's: a causal mask, one attention_bias for q, k, v and o, ``qk_norm``."""
    out = llama_style_mismatches(cfg)
    if cfg.mask != "causal":
        out.append(f"mask={cfg.mask!r} (needs 'causal')")
    if cfg.qkv_bias != cfg.out_bias:
        out.append(f"qkv_bias={cfg.qkv_bias} and out_bias={cfg.out_bias} (attention_bias sets both)")
    if cfg.qk_norm != qk_norm:
        out.append(f"qk_norm={cfg.qk_norm} (needs {qk_norm})")
    return out


def llama_style_to_hf(family: str, architecture: str, cfg: DecoderConfig) -> dict:
    """The config.json keys every Llama-style family writes (the family adds its own)."""
    return dict(
        architectures=[architecture], model_type=family, num_hidden_layers=cfg.depth,
        hidden_size=cfg.width, num_attention_heads=cfg.heads, num_key_value_heads=cfg.resolved_kv_heads,
        head_dim=cfg.resolved_head_dim, intermediate_size=cfg.resolved_mlp_width, rms_norm_eps=cfg.norm_eps,
        rope_theta=cfg.rope_theta, rope_parameters=rope_parameters(cfg),
        max_position_embeddings=cfg.max_positions, vocab_size=cfg.vocab_size,
        tie_word_embeddings=cfg.tie_embeddings, hidden_act="silu", initializer_range=cfg.init_std,
    )


def config_from_hf(raw: dict, param_dtype: str) -> DecoderConfig:
    """The DecoderConfig of a Llama config.json (ValueError naming a missing or refused key)."""
    bias = bool(raw.get("attention_bias", DEFAULTS["attention_bias"]))
    return llama_style_config(raw, FAMILY, DEFAULTS, param_dtype, mask="causal", qkv_bias=bias, out_bias=bias,
                              mlp_bias=bool(raw.get("mlp_bias", DEFAULTS["mlp_bias"])), qk_norm=False)


def mismatches(cfg: DecoderConfig) -> list[str]:
    """The fields that keep ``cfg`` from being exported as Llama (empty: it can be)."""
    return causal_mismatches(cfg, qk_norm=False)


def config_to_hf(cfg: DecoderConfig) -> dict:
    """The config.json dict (without dtype keys) describing ``cfg`` for LlamaForCausalLM."""
    return dict(llama_style_to_hf(FAMILY, ARCHITECTURE, cfg), attention_bias=cfg.qkv_bias, mlp_bias=cfg.mlp_bias)
