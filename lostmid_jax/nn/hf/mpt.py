"""MPT (MptForCausalLM), an ALiBi family: config.json <-> DecoderConfig and tensor layout.

wte, LayerNorm without bias, no bias in any projection, a fused Wqkv, exact
(erf) GELU, MLP width expansion_ratio * D, final norm_f, tied LM head, ALiBi
with the paper's slopes (alibi_bias_max 8; transformers' ordering
concat(slopes[1::2], slopes[::2]) of the next power of two is the same
rule; the sign convention: nn/hf/common.py).

Keys read: n_layers / num_hidden_layers (H), d_model / hidden_size (D),
n_heads / num_attention_heads, expansion_ratio, max_seq_len,
layer_norm_epsilon, vocab_size, tie_word_embeddings, initializer_range,
attn_config, no_bias, logit_scale, norm_type.

Tensors, names under "transformer." (torch Linear weights [out, in]; F MLP width):

    wte.weight [V, D]                                    <- wte
    blocks.l.norm_1.weight, blocks.l.norm_2.weight [D]   <- blocks.norm{1,2}.scale[l]
    blocks.l.attn.Wqkv.weight [3 D, D]                   <- concat(q, k, v kernels, axis 1)[l]^T
    blocks.l.attn.out_proj.weight [D, D]                 <- blocks.attn.o.kernel[l]^T
    blocks.l.ffn.up_proj.weight [F, D], ffn.down_proj.weight [D, F]  <- blocks.mlp.{up,down}[l]^T
    norm_f.weight [D]                                    <- final_norm.scale
    lm_head.weight [V, D]                                <- lm_head.kernel^T (untied only)

Refused (ValueError naming the config.json key): attn_config.alibi=false
(learned positions instead; transformers ignores the key), alibi_bias_max
other than 8 (transformers ignores it and uses 8), clip_qkv, qk_ln,
prefix_lm, attn_type other than "multihead_attention", softmax_scale other
than null or 1 / sqrt(Dh), attn_impl other than "torch" / "flash" /
"triton" (these three are one function), no_bias=false, logit_scale not
null (transformers ignores both), norm_type other than
"low_precision_layernorm" / "layernorm", and expansion_ratio other than 4:
transformers' MptForCausalLM builds an MLP of width 4 D whatever the ratio
says, so a checkpoint it writes with another ratio disagrees with its own
config. Accepted because they leave the function unchanged: dropouts,
attn_uses_sequence_id (needs sequence ids, which a forward pass does not
take), embedding_fraction (a gradient scale), learned_pos_emb (no table
exists with ALiBi).
"""

from __future__ import annotations

import math

from ...untrusted import typed
from ..config import DecoderConfig
from .common import ALIBI_FIXED, FusedQKVLayout, alibi_config, alibi_mismatches, first_key, refuse

FAMILY = "mpt"
PREFIX = "transformer."
EMBEDDING = "wte.weight"
HANDLED_KEYS = frozenset({"n_layers", "num_hidden_layers", "d_model", "hidden_size", "n_heads", "num_attention_heads",
                          "expansion_ratio", "max_seq_len", "layer_norm_epsilon", "vocab_size", "tie_word_embeddings",
                          "initializer_range", "attn_config", "no_bias", "logit_scale", "norm_type"})
# dropouts; embedding_fraction (a gradient scale); learned_pos_emb (no table exists with ALiBi); the
# initialization recipe and device; llm-foundry's logging and tokenizer entries
IGNORED_KEYS = frozenset({"emb_pdrop", "resid_pdrop", "embedding_fraction", "learned_pos_emb", "init_device",
                          "init_config", "verbose", "tokenizer_name"})
# Fields a DecoderConfig must have to be exported as MPT.
FIXED = dict(ALIBI_FIXED, norm_bias=False, embed_norm=False, mlp="gelu-exact", qkv_bias=False, out_bias=False,
             mlp_bias=False)
_ATTN_IMPLS = ("torch", "flash", "triton")
_NORMS = ("low_precision_layernorm", "layernorm")


def _attention(attn: dict, width: int, heads: int) -> None:
    """Refuse the attn_config variants our stack does not compute."""
    if not isinstance(attn, dict):
        raise ValueError(f"config.json attn_config must be an object, got {type(attn).__name__}")
    refuse(attn.get("alibi", True) is not True,
           "attn_config.alibi=false is not supported (MPT without ALiBi uses learned positions, which "
           "transformers' MptForCausalLM does not implement)")
    refuse(attn.get("alibi_bias_max", 8) != 8,
           f"attn_config.alibi_bias_max={attn.get('alibi_bias_max')!r} is not supported (only 8; transformers "
           "ignores the key and uses 8)")
    refuse(attn.get("clip_qkv") is not None, f"attn_config.clip_qkv={attn.get('clip_qkv')!r} is not supported "
           "(only null: no clamping of q, k, v)")
    refuse(bool(attn.get("qk_ln", False)), "attn_config.qk_ln=true is not supported")
    refuse(bool(attn.get("prefix_lm", False)), "attn_config.prefix_lm=true is not supported")
    refuse(attn.get("attn_type", "multihead_attention") != "multihead_attention",
           f"attn_config.attn_type={attn.get('attn_type')!r} is not supported (only 'multihead_attention')")
    refuse(attn.get("attn_impl", "torch") not in _ATTN_IMPLS,
           f"attn_config.attn_impl={attn.get('attn_impl')!r} is not supported (one of {_ATTN_IMPLS})")
    scale = typed(attn, "softmax_scale", "a number", "config.json attn_config", nullable=True)
    sizes_ok = all(isinstance(v, int) and not isinstance(v, bool) for v in (width, heads)) and 1 <= heads <= width
    if scale is not None and sizes_ok and width % heads == 0:  # else DecoderConfig refuses the sizes, named
        refuse(not math.isclose(float(scale), 1.0 / math.sqrt(width // heads), rel_tol=1e-12),
               f"attn_config.softmax_scale={scale!r} is not supported (only null or 1 / sqrt(head_dim) = "
               f"{1.0 / math.sqrt(width // heads)!r})")


def config_from_hf(raw: dict, param_dtype: str) -> DecoderConfig:
    """The DecoderConfig of an MPT config.json (ValueError naming a refused key)."""
    width = first_key(raw, ("d_model", "hidden_size"), "mpt")
    heads = first_key(raw, ("n_heads", "num_attention_heads"), "mpt")
    _attention(raw.get("attn_config") or {}, width, heads)
    refuse(raw.get("no_bias", True) is not True,
           "no_bias=false is not supported (transformers' MptForCausalLM has no biases)")
    refuse(raw.get("logit_scale") is not None,
           f"logit_scale={raw.get('logit_scale')!r} is not supported (only null; transformers ignores it)")
    refuse(raw.get("norm_type", "low_precision_layernorm") not in _NORMS,
           f"norm_type={raw.get('norm_type')!r} is not supported (one of {_NORMS})")
    ratio = raw.get("expansion_ratio", 4)
    refuse(isinstance(ratio, bool) or ratio != 4,
           f"expansion_ratio={ratio!r} is not supported (only 4: transformers' MptForCausalLM builds an MLP "
           "of width 4 * d_model whatever the ratio, so its checkpoints with another ratio contradict their config)")
    return alibi_config(raw, "mpt", FIXED, param_dtype, depth=first_key(raw, ("n_layers", "num_hidden_layers"), "mpt"),
                        width=width, heads=heads, mlp_width=ratio * width,
                        max_positions=int(raw.get("max_seq_len", 2048)))


def mismatches(cfg: DecoderConfig) -> list[str]:
    """The fields that keep ``cfg`` from being exported as MPT (empty: it can be)."""
    return alibi_mismatches(cfg, FIXED, ", as transformers' MptForCausalLM builds")


def config_to_hf(cfg: DecoderConfig) -> dict:
    """The config.json dict (without dtype keys) describing ``cfg`` for MptForCausalLM."""
    return dict(
        architectures=["MptForCausalLM"], model_type="mpt", d_model=cfg.width, n_heads=cfg.heads,
        n_layers=cfg.depth, expansion_ratio=cfg.resolved_mlp_width // cfg.width, max_seq_len=cfg.max_positions,
        vocab_size=cfg.vocab_size, layer_norm_epsilon=cfg.norm_eps, no_bias=True,
        norm_type="low_precision_layernorm", logit_scale=None, learned_pos_emb=False,
        initializer_range=cfg.init_std, tie_word_embeddings=cfg.tie_embeddings,
        # attn_pdrop an int: transformers 5's strict MptAttentionConfig refuses 0.0
        attn_config=dict(attn_type="multihead_attention", attn_pdrop=0, attn_impl="torch", clip_qkv=None,
                         softmax_scale=None, prefix_lm=False, qk_ln=False, attn_uses_sequence_id=False,
                         alibi=True, alibi_bias_max=8),
    )


def _fuse(parts, heads: int, xp):
    """q, k, v [..., D] -> [..., 3 D] (concatenated)."""
    return xp.concatenate(parts, axis=-1)


def _split(fused, heads: int, xp):
    """Inverse of :func:`_fuse`."""
    width = fused.shape[-1] // 3
    return [fused[..., i * width:(i + 1) * width] for i in range(3)]


LAYOUT = FusedQKVLayout(
    prefix=PREFIX, embedding=EMBEDDING, layer="blocks.{}.", final="norm_f",
    norms={"norm_1": "norm1", "norm_2": "norm2"},
    linears={"attn.out_proj": ("attn", "o"), "ffn.up_proj": ("mlp", "up"), "ffn.down_proj": ("mlp", "down")},
    fused="attn.Wqkv", fuse=_fuse, split=_split)
to_hf = LAYOUT.to_hf
from_hf = LAYOUT.from_hf
