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

BLOOM-560M (HF "bigscience/bloom-560m" config.json): 24 layers, width 1024,
16 heads, ALiBi with the paper's slopes, LayerNorm (eps 1e-5, with bias) on
the input embeddings, before attention and MLP and at the end, biases on
every projection, GELU-tanh MLP of width 4096, tied embeddings, vocab
250880, init N(0, 0.02): 559,214,592 parameters.

MPT-7B (HF "mosaicml/mpt-7b" config.json): 32 layers, d_model 4096, 32
heads, ALiBi (alibi_bias_max 8), LayerNorm without bias (eps 1e-5), no
projection biases, exact-GELU MLP of width 4 * 4096, tied embeddings, vocab
50432, init N(0, 0.02): 6,649,286,656 parameters.

Llama-3.2-1B (HF "meta-llama/Llama-3.2-1B" config.json): 16 layers, width
2048, 32 heads, 8 key/value heads, head dim 64, no biases, SwiGLU MLP of
width 8192, RMSNorm eps 1e-5, RoPE theta 5e5 with llama3 scaling (factor 32,
low_freq_factor 1, high_freq_factor 4, original context 8192), tied
embeddings, vocab 128256: 1,235,814,400 parameters.

Mistral-7B-v0.1 (HF "mistralai/Mistral-7B-v0.1" config.json): 32 layers,
width 4096, 32 heads, 8 key/value heads, sliding window 4096, no biases,
SwiGLU MLP of width 14336, RMSNorm eps 1e-5, RoPE theta 1e4, untied
embeddings, vocab 32000: 7,241,732,096 parameters.

Qwen3-0.6B (HF "Qwen/Qwen3-0.6B" config.json): 28 layers, width 1024, 16
heads, 8 key/value heads, head dim 128 (independent of the width), per-head
q/k RMSNorm, no biases, SwiGLU MLP of width 3072, RMSNorm eps 1e-6, RoPE
theta 1e6, tied embeddings, vocab 151936: 596,049,920 parameters (the hub's
751,632,384 counts the tied lm_head a second time).
"""

from __future__ import annotations

import dataclasses

from .config import DecoderConfig
from .rope_scaling import RopeScaling

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
    # Deep enough to test a depth claim, small enough to measure exactly on a CPU:
    # the same Qwen2-like architecture as "toy" at depth 12, width 128.
    "toy-deep": DecoderConfig(
        depth=12, width=128, heads=4, kv_heads=2, qkv_bias=True, out_bias=False,
        position="rope", rope_theta=10000.0, norm="rmsnorm", norm_eps=1e-6,
        mlp="swiglu", mlp_width=256, init="normal", init_std=0.02,
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

_ALIBI = dict(attention="softmax", mask="causal", position="alibi", alibi_rule="alibi", norm="layernorm",
              norm_eps=1e-5, pre_norm=True, final_norm=True, init="normal", init_std=0.02, tie_embeddings=True)
PRESETS["bloom-560m"] = DecoderConfig(
    depth=24, width=1024, heads=16, embed_norm=True, norm_bias=True, qkv_bias=True, out_bias=True,
    mlp="gelu", mlp_width=4096, mlp_bias=True, vocab_size=250880, **_ALIBI,
)
PRESETS["mpt-7b"] = DecoderConfig(
    depth=32, width=4096, heads=32, embed_norm=False, norm_bias=False, qkv_bias=False, out_bias=False,
    mlp="gelu-exact", mlp_width=4 * 4096, mlp_bias=False, max_positions=2048, vocab_size=50432, **_ALIBI,
)

_ROPE = dict(attention="softmax", position="rope", norm="rmsnorm", pre_norm=True, final_norm=True, mlp="swiglu",
             qkv_bias=False, out_bias=False, mlp_bias=False, init="normal", init_std=0.02)
PRESETS["llama-3.2-1b"] = DecoderConfig(
    depth=16, width=2048, heads=32, kv_heads=8, mlp_width=8192, norm_eps=1e-5, rope_theta=5e5,
    rope_scaling=RopeScaling(kind="llama3", factor=32.0, low_freq_factor=1.0, high_freq_factor=4.0,
                             original_max_positions=8192),
    max_positions=131072, vocab_size=128256, tie_embeddings=True, mask="causal", **_ROPE,
)
PRESETS["mistral-7b"] = DecoderConfig(
    depth=32, width=4096, heads=32, kv_heads=8, mlp_width=14336, norm_eps=1e-5, rope_theta=1e4,
    max_positions=32768, vocab_size=32000, tie_embeddings=False, mask="sliding_window", window=4096, **_ROPE,
)
PRESETS["qwen3-0.6b"] = DecoderConfig(
    depth=28, width=1024, heads=16, kv_heads=8, head_dim=128, qk_norm=True, mlp_width=3072, norm_eps=1e-6,
    rope_theta=1e6, max_positions=40960, vocab_size=151936, tie_embeddings=True, mask="causal", **_ROPE,
)


def preset(name: str, **overrides) -> DecoderConfig:
    """A preset DecoderConfig with fields replaced by ``overrides``.

    Args:
      name: one of "toy", "toy-deep", "gpt2-small", "gpt2-medium", "qwen2-0.5b",
        "bloom-560m", "mpt-7b", "llama-3.2-1b", "mistral-7b", "qwen3-0.6b".
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
