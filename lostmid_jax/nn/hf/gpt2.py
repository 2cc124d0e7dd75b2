"""GPT-2 (GPT2LMHeadModel): config.json <-> DecoderConfig and tensor layout.

Keys read: n_layer (H), n_embd (D), n_head, n_inner (MLP width, null =
4 D), n_positions, layer_norm_epsilon, vocab_size, activation_function
("gelu_new" / "gelu_pytorch_tanh" / "gelu_fast": the tanh GELU),
initializer_range, tie_word_embeddings.

Refused (ValueError naming the key): scale_attn_weights=false,
scale_attn_by_inverse_layer_idx=true, another activation_function.

Tensors, names under "transformer." (Conv1D weights are [in, out] like ours):

    wte.weight [V, D]               <- wte
    wpe.weight [P, D]               <- wpe
    h.l.ln_1.{weight,bias} [D]      <- blocks.norm1.{scale,bias}[l]
    h.l.attn.c_attn.weight [D, 3D]  <- concat(q, k, v kernels [D, D], axis 1)[l]
    h.l.attn.c_attn.bias [3D]       <- concat(q, k, v biases)[l]
    h.l.attn.c_proj.{weight [D, D], bias}  <- blocks.attn.o[l]
    h.l.ln_2.{weight,bias}          <- blocks.norm2[l]
    h.l.mlp.c_fc.{weight [D, F], bias}     <- blocks.mlp.up[l]
    h.l.mlp.c_proj.{weight [F, D], bias}   <- blocks.mlp.down[l]
    ln_f.{weight,bias}              <- final_norm.{scale,bias}
    lm_head.weight [V, D]           <- lm_head.kernel^T (untied only)

GPT-2's learned positions wpe are added to the input embeddings inside our
stack, exactly as GPT2Model does with ``inputs_embeds``.
"""

from __future__ import annotations

from ..config import DecoderConfig
from .common import (B, fixed_mismatches, layers_from_hf, linear_to_hf, lm_head_to_hf, norm_to_hf,
                     plain_heads_mismatch, require, stack)

FAMILY = "gpt2"
PREFIX = "transformer."
GELU_TANH = ("gelu_new", "gelu_pytorch_tanh", "gelu_fast")
HANDLED_KEYS = frozenset({"n_layer", "n_embd", "n_head", "n_inner", "n_positions", "layer_norm_epsilon", "vocab_size",
                          "activation_function", "initializer_range", "tie_word_embeddings", "scale_attn_weights",
                          "scale_attn_by_inverse_layer_idx"})
# dropouts; summary_*: the classifier head of GPT2DoubleHeadsModel; n_ctx: an old twin of n_positions that
# transformers does not read; reorder_and_upcast_attn: the same attention computed in float32
IGNORED_KEYS = frozenset({"attn_pdrop", "embd_pdrop", "resid_pdrop", "summary_activation", "summary_first_dropout",
                          "summary_proj_to_labels", "summary_type", "summary_use_proj", "n_ctx",
                          "reorder_and_upcast_attn"})
# Fields a DecoderConfig must have to be exported as GPT-2.
FIXED = dict(attention="softmax", mask="causal", position="learned", norm="layernorm",
             norm_bias=True, pre_norm=True, final_norm=True, mlp="gelu", qkv_bias=True,
             out_bias=True, mlp_bias=True, residual=True, attn_mix=None, qk_norm=False, sinks=0,
             rope_scaling=None)

_LINEARS = {"attn.c_proj": ("attn", "o"), "mlp.c_fc": ("mlp", "up"), "mlp.c_proj": ("mlp", "down")}
_NORMS = {"ln_1": "norm1", "ln_2": "norm2"}


def config_from_hf(raw: dict, param_dtype: str) -> DecoderConfig:
    """The DecoderConfig of a GPT-2 config.json (ValueError naming a missing or refused key)."""
    act = raw.get("activation_function", "gelu_new")
    if act not in GELU_TANH:
        raise ValueError(f"config.json activation_function={act!r} is not supported (expected one of {GELU_TANH})")
    if raw.get("scale_attn_weights", True) is not True:
        raise ValueError("config.json scale_attn_weights=false is not supported")
    if raw.get("scale_attn_by_inverse_layer_idx", False):
        raise ValueError("config.json scale_attn_by_inverse_layer_idx=true is not supported")
    return DecoderConfig(
        depth=require(raw, "n_layer", "gpt2"), width=require(raw, "n_embd", "gpt2"),
        heads=require(raw, "n_head", "gpt2"), mlp_width=raw.get("n_inner"),
        max_positions=require(raw, "n_positions", "gpt2"),
        norm_eps=float(raw.get("layer_norm_epsilon", 1e-5)),
        vocab_size=require(raw, "vocab_size", "gpt2"),
        tie_embeddings=bool(raw.get("tie_word_embeddings", True)),
        init="gpt2", init_std=float(raw.get("initializer_range", 0.02)),
        param_dtype=param_dtype, **FIXED,
    )


def mismatches(cfg: DecoderConfig) -> list[str]:
    """The fields that keep ``cfg`` from being exported as GPT-2 (empty: it can be)."""
    out = fixed_mismatches(cfg, FIXED)
    if plain_heads_mismatch(cfg):
        out.append("kv_heads/head_dim (GPT-2 has plain multi-head attention with head_dim = width / heads)")
    return out


def config_to_hf(cfg: DecoderConfig) -> dict:
    """The config.json dict (without dtype keys) describing ``cfg`` for GPT2LMHeadModel."""
    return dict(
        architectures=["GPT2LMHeadModel"], model_type="gpt2", n_layer=cfg.depth, n_embd=cfg.width,
        n_head=cfg.heads, n_inner=cfg.mlp_width, n_positions=cfg.max_positions,
        layer_norm_epsilon=cfg.norm_eps, vocab_size=cfg.vocab_size, activation_function="gelu_new",
        initializer_range=cfg.init_std, tie_word_embeddings=cfg.tie_embeddings,
        scale_attn_weights=True, scale_attn_by_inverse_layer_idx=False, reorder_and_upcast_attn=False,
    )


def to_hf(p: dict, depth: int, xp, *, heads: int | None = None) -> dict:
    """HF state dict {name: array} from our flat params ``p`` (``heads`` unused)."""
    pre, out = PREFIX, {}
    out[pre + "wte.weight"] = p[("wte",)]
    out[pre + "wpe.weight"] = p[("wpe",)]
    qkv = [p[B + ("attn", n, "kernel")] for n in "qkv"]
    qkv_b = [p[B + ("attn", n, "bias")] for n in "qkv"]
    for l in range(depth):
        out[f"{pre}h.{l}.attn.c_attn.weight"] = xp.concatenate([w[l] for w in qkv], axis=1)
        out[f"{pre}h.{l}.attn.c_attn.bias"] = xp.concatenate([b[l] for b in qkv_b], axis=0)
        for hf, ours in _NORMS.items():
            norm_to_hf(p, f"{pre}h.{l}.{hf}", B + (ours,), l, out)
    for hf, path in _LINEARS.items():
        linear_to_hf(p, pre + "h.{}." + hf, path, depth, out, transpose=False, xp=xp)
    norm_to_hf(p, pre + "ln_f", ("final_norm",), None, out)
    lm_head_to_hf(p, out, xp)
    return out


def from_hf(t: dict, paths, depth: int, xp, *, heads: int | None = None) -> dict:
    """Our flat params {path: array} for the wanted ``paths`` from a checked HF state dict ``t``
    (exactly the names :func:`to_hf` produces, with matching shapes)."""
    pre, paths, p = PREFIX, set(paths), {}
    layers = range(depth)
    p[("wte",)], p[("wpe",)] = t[pre + "wte.weight"], t[pre + "wpe.weight"]
    w = stack(t, [f"{pre}h.{l}.attn.c_attn.weight" for l in layers], xp)  # [H, D, 3D]
    b = stack(t, [f"{pre}h.{l}.attn.c_attn.bias" for l in layers], xp)  # [H, 3D]
    for i, n in enumerate("qkv"):
        width = w.shape[2] // 3
        p[B + ("attn", n, "kernel")] = w[:, :, i * width:(i + 1) * width]
        p[B + ("attn", n, "bias")] = b[:, i * width:(i + 1) * width]
    return layers_from_hf(t, paths, p, depth, xp, pre=pre, layer="h.{}.", linears=_LINEARS, norms=_NORMS,
                          final="ln_f", transpose=False)
