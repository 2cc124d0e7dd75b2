"""Architecture presets: random-init replicas of published models.

GPT-2 (Radford et al. 2019; HF "gpt2", "gpt2-medium"): learned absolute
positions (1024), pre-norm LayerNorm (eps 1e-5), GELU-tanh MLP of width 4D,
biases on qkv and every projection, final LayerNorm, tied embeddings, vocab
50257, init N(0, 0.02) with residual output projections scaled by
1/sqrt(2 H).

Qwen2-0.5B (HF "Qwen/Qwen2-0.5B" config.json): 24 layers, width 896, 14
heads, 2 key/value heads, head dim 64, q/k/v biases and no o_proj bias,
SwiGLU MLP of width 4864 without biases, RMSNorm eps 1e-6, RoPE theta 1e6,
final RMSNorm, tied embeddings, vocab 151936, init N(0, 0.02).
"""

from __future__ import annotations

import dataclasses

from .config import DecoderConfig

_GPT2 = dict(
    qkv_bias=True, out_bias=True, attention="softmax", mask="causal",
    position="learned", max_positions=1024, norm="layernorm", norm_eps=1e-5,
    norm_bias=True, pre_norm=True, final_norm=True, mlp="gelu", mlp_bias=True,
    init="gpt2", init_std=0.02, vocab_size=50257, tie_embeddings=True,
)

PRESETS: dict[str, DecoderConfig] = {
    # Small and fast, for tests: Qwen2-like (GQA, RoPE, SwiGLU, RMSNorm).
    "toy": DecoderConfig(
        depth=2, width=32, heads=4, kv_heads=2, qkv_bias=True, out_bias=False,
        position="rope", rope_theta=10000.0, norm="rmsnorm", norm_eps=1e-6,
        mlp="swiglu", mlp_width=64, init="normal", init_std=0.02,
        vocab_size=128, tie_embeddings=True,
    ),
    "gpt2-small": DecoderConfig(depth=12, width=768, heads=12, **_GPT2),
    "gpt2-medium": DecoderConfig(depth=24, width=1024, heads=16, **_GPT2),
    "qwen2-0.5b": DecoderConfig(
        depth=24, width=896, heads=14, kv_heads=2, head_dim=64, qkv_bias=True,
        out_bias=False, attention="softmax", mask="causal", position="rope",
        rope_theta=1e6, norm="rmsnorm", norm_eps=1e-6, pre_norm=True,
        final_norm=True, mlp="swiglu", mlp_width=4864, mlp_bias=False,
        init="normal", init_std=0.02, vocab_size=151936, tie_embeddings=True,
    ),
}


def preset(name: str, **overrides) -> DecoderConfig:
    """A preset DecoderConfig with fields replaced by ``overrides``.

    Args:
      name: one of "toy", "gpt2-small", "gpt2-medium", "qwen2-0.5b".
      **overrides: DecoderConfig fields (validated again), e.g.
        ``preset("gpt2-small", position="rope", param_dtype="float64")``.
    """
    if not isinstance(name, str) or name not in PRESETS:
        raise ValueError(f"name must be one of {tuple(PRESETS)}, got {name!r}")
    fields = {f.name for f in dataclasses.fields(DecoderConfig)}
    unknown = sorted(set(overrides) - fields)
    if unknown:
        raise ValueError(f"DecoderConfig has no field(s) {unknown}")
    return dataclasses.replace(PRESETS[name], **overrides)
