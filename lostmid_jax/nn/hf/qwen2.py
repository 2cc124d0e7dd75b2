"""Qwen2 (Qwen2ForCausalLM): config.json <-> DecoderConfig and the tensor layout Llama, Mistral and
Qwen3 share.

Keys read: num_hidden_layers (H), hidden_size (D), num_attention_heads,
num_key_value_heads, head_dim (optional), intermediate_size, rms_norm_eps,
the RoPE keys (nn/hf/rope.py: rope_theta and rope_type "default", "linear",
"dynamic", "llama3" or "yarn"), vocab_size, tie_word_embeddings, max_position_embeddings, hidden_act
("silu"), initializer_range.

Refused (ValueError naming the key): use_sliding_window=true, the RoPE keys
nn/hf/rope.py refuses, another hidden_act.

Tensors, names under "model." (torch Linear weights are [out, in], transposed):

    embed_tokens.weight [V, D]                         <- wte
    layers.l.input_layernorm.weight [D]                <- blocks.norm1.scale[l]
    layers.l.self_attn.{q,k,v}_proj.{weight [N Dh|G Dh, D], bias}  <- blocks.attn.{q,k,v}[l]
    layers.l.self_attn.o_proj.weight [D, N Dh]         <- blocks.attn.o.kernel[l]^T (no bias)
    layers.l.post_attention_layernorm.weight [D]       <- blocks.norm2.scale[l]
    layers.l.mlp.{gate,up,down}_proj.weight            <- blocks.mlp.{gate,up,down}.kernel[l]^T
    norm.weight [D]                                    <- final_norm.scale
    lm_head.weight [V, D]                              <- lm_head.kernel^T (untied only)

Llama, Mistral and Qwen3 use these names (biases only where the config has
them; Qwen3 adds per-layer q/k norms through ``extra_norms``).
"""

from __future__ import annotations

from ..config import DecoderConfig
from .common import (B, fixed_mismatches, head_dim, layers_from_hf, linear_to_hf, lm_head_to_hf, norm_to_hf,
                     require, stack)
from .rope import ROPE_KEYS, mismatches as rope_mismatches, rope_from_hf, rope_parameters

FAMILY = "qwen2"
PREFIX = "model."
HANDLED_KEYS = frozenset({"num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads",
                          "head_dim", "intermediate_size", "rms_norm_eps", "max_position_embeddings", "vocab_size",
                          "tie_word_embeddings", "hidden_act", "initializer_range", "use_sliding_window"}) | ROPE_KEYS
# attention_dropout: training only; sliding_window, max_window_layers, layer_types: in effect only with
# use_sliding_window=true (refused)
IGNORED_KEYS = frozenset({"attention_dropout", "sliding_window", "max_window_layers", "layer_types"})
# Fields a DecoderConfig must have to be exported as Qwen2.
FIXED = dict(attention="softmax", mask="causal", position="rope", norm="rmsnorm",
             pre_norm=True, final_norm=True, mlp="swiglu", qkv_bias=True, out_bias=False,
             mlp_bias=False, residual=True, attn_mix=None, qk_norm=False, sinks=0)

LINEARS = {f"self_attn.{n}_proj": ("attn", n) for n in "qkvo"}
LINEARS.update({f"mlp.{n}_proj": ("mlp", n) for n in ("gate", "up", "down")})
NORMS = {"input_layernorm": "norm1", "post_attention_layernorm": "norm2"}


def config_from_hf(raw: dict, param_dtype: str) -> DecoderConfig:
    """The DecoderConfig of a Qwen2 config.json (ValueError naming a missing or refused key)."""
    if raw.get("hidden_act", "silu") != "silu":
        raise ValueError(f"config.json hidden_act={raw['hidden_act']!r} is not supported (expected 'silu')")
    if raw.get("use_sliding_window", False):
        raise ValueError("config.json use_sliding_window=true is not supported")
    theta, scaling = rope_from_hf(raw)
    return DecoderConfig(
        depth=require(raw, "num_hidden_layers", "qwen2"), width=require(raw, "hidden_size", "qwen2"),
        heads=require(raw, "num_attention_heads", "qwen2"),
        kv_heads=raw.get("num_key_value_heads"), head_dim=head_dim(raw),
        mlp_width=require(raw, "intermediate_size", "qwen2"),
        norm_eps=float(raw.get("rms_norm_eps", 1e-6)), rope_theta=theta, rope_scaling=scaling,
        max_positions=int(raw.get("max_position_embeddings", 32768)),
        vocab_size=require(raw, "vocab_size", "qwen2"),
        tie_embeddings=bool(raw.get("tie_word_embeddings", False)),
        init="normal", init_std=float(raw.get("initializer_range", 0.02)),
        param_dtype=param_dtype, **FIXED,
    )


def mismatches(cfg: DecoderConfig) -> list[str]:
    """The fields that keep ``cfg`` from being exported as Qwen2 (empty: it can be)."""
    return fixed_mismatches(cfg, FIXED) + rope_mismatches(cfg)


def config_to_hf(cfg: DecoderConfig) -> dict:
    """The config.json dict (without dtype keys) describing ``cfg`` for Qwen2ForCausalLM."""
    return dict(
        architectures=["Qwen2ForCausalLM"], model_type="qwen2", num_hidden_layers=cfg.depth,
        hidden_size=cfg.width, num_attention_heads=cfg.heads, num_key_value_heads=cfg.resolved_kv_heads,
        head_dim=cfg.resolved_head_dim, intermediate_size=cfg.resolved_mlp_width,
        rms_norm_eps=cfg.norm_eps, rope_theta=cfg.rope_theta,
        rope_parameters=rope_parameters(cfg),
        max_position_embeddings=cfg.max_positions, vocab_size=cfg.vocab_size,
        tie_word_embeddings=cfg.tie_embeddings, hidden_act="silu", use_sliding_window=False,
        initializer_range=cfg.init_std,
    )


def to_hf(p: dict, depth: int, xp, *, heads: int | None = None, extra_norms: dict | None = None) -> dict:
    """HF state dict {name: array} from our flat params ``p`` (``heads`` unused).

    ``extra_norms``: {HF name: our path under blocks} of per-layer norms beyond
    Qwen2's (Qwen3's q/k norms), written when ``p`` has them.
    """
    pre, out = PREFIX, {}
    out[pre + "embed_tokens.weight"] = p[("wte",)]
    for hf, path in LINEARS.items():
        linear_to_hf(p, pre + "layers.{}." + hf, path, depth, out, transpose=True, xp=xp)
    for l in range(depth):
        for hf, ours in NORMS.items():
            norm_to_hf(p, f"{pre}layers.{l}.{hf}", B + (ours,), l, out)
    for hf, path in (extra_norms or {}).items():
        if B + path + ("scale",) in p:
            for l in range(depth):
                out[f"{pre}layers.{l}.{hf}.weight"] = p[B + path + ("scale",)][l]
    norm_to_hf(p, pre + "norm", ("final_norm",), None, out)
    lm_head_to_hf(p, out, xp)
    return out


def from_hf(t: dict, paths, depth: int, xp, *, heads: int | None = None, extra_norms: dict | None = None) -> dict:
    """Our flat params {path: array} for the wanted ``paths`` from a checked HF state dict ``t``
    (exactly the names :func:`to_hf` produces, with matching shapes)."""
    pre, paths, p = PREFIX, set(paths), {}
    p[("wte",)] = t[pre + "embed_tokens.weight"]
    for hf, path in (extra_norms or {}).items():
        if B + path + ("scale",) in paths:
            p[B + path + ("scale",)] = stack(t, [f"{pre}layers.{l}.{hf}.weight" for l in range(depth)], xp)
    return layers_from_hf(t, paths, p, depth, xp, pre=pre, layer="layers.{}.", linears=LINEARS, norms=NORMS,
                          final="norm", transpose=True)
