"""BLOOM (BloomForCausalLM), an ALiBi family: config.json <-> DecoderConfig and tensor layout.

word_embeddings, then word_embeddings_layernorm on the input embeddings
(``embed_norm``), pre-norm LayerNorm blocks with biases, a fused
query_key_value projection, GELU (tanh approximation), MLP width 4 D, final
LayerNorm ln_f, tied LM head, ALiBi with the paper's slopes (the sign
convention: nn/hf/common.py).

Keys read: n_layer / num_hidden_layers (H), hidden_size / n_embed (D),
n_head / num_attention_heads, layer_norm_epsilon, vocab_size,
tie_word_embeddings, initializer_range.

Tensors, names under "transformer." (torch Linear weights [out, in]; N heads, Dh head dim, F MLP width):

    word_embeddings.weight [V, D]                        <- wte
    word_embeddings_layernorm.{weight,bias} [D]          <- embed_norm.{scale,bias}
    h.l.input_layernorm.{weight,bias}                    <- blocks.norm1[l]
    h.l.self_attention.query_key_value.weight [3 D, D]   rows ordered [N, 3, Dh]:
        row (n, c, e) is column n Dh + e of our q (c = 0), k (1) or v (2) kernel
    h.l.self_attention.query_key_value.bias [3 D]        the same [N, 3, Dh] order
    h.l.self_attention.dense.{weight [D, D], bias}       <- blocks.attn.o[l]^T
    h.l.post_attention_layernorm.{weight,bias}           <- blocks.norm2[l]
    h.l.mlp.dense_h_to_4h.{weight [F, D], bias}          <- blocks.mlp.up[l]^T
    h.l.mlp.dense_4h_to_h.{weight [D, F], bias}          <- blocks.mlp.down[l]^T
    ln_f.{weight,bias}                                   <- final_norm
    lm_head.weight [V, D]                                <- lm_head.kernel^T (untied only)

Refused (ValueError naming the key): apply_residual_connection_post_layernorm=true
(the residual is the normed stream), slow_but_exact=true with
pretraining_tp > 1 (transformers then drops the biases of
self_attention.dense and mlp.dense_4h_to_h) and n_inner other than null /
4 D (transformers builds 4 D anyway). Accepted because they leave the
function unchanged: pretraining_tp alone, slow_but_exact with
pretraining_tp 1 (no effect), dropouts.
"""

from __future__ import annotations

from ..config import DecoderConfig
from .common import ALIBI_FIXED, FusedQKVLayout, alibi_config, alibi_mismatches, first_key, refuse

FAMILY = "bloom"
PREFIX = "transformer."
EMBEDDING = "word_embeddings.weight"
HANDLED_KEYS = frozenset({"n_layer", "num_hidden_layers", "hidden_size", "n_embed", "n_head", "num_attention_heads",
                          "layer_norm_epsilon", "vocab_size", "tie_word_embeddings", "initializer_range",
                          "apply_residual_connection_post_layernorm", "slow_but_exact", "pretraining_tp",
                          "n_inner"})
# dropouts, and the Megatron-DeepSpeed training switches BLOOM's files carry (transformers reads none of them)
IGNORED_KEYS = frozenset({"attention_dropout", "hidden_dropout", "attention_softmax_in_fp32", "bias_dropout_fusion",
                          "masked_softmax_fusion", "offset_alibi", "skip_bias_add", "skip_bias_add_qkv",
                          "seq_length"})
# Fields a DecoderConfig must have to be exported as BLOOM.
FIXED = dict(ALIBI_FIXED, norm_bias=True, embed_norm=True, mlp="gelu", qkv_bias=True, out_bias=True,
             mlp_bias=True)


def config_from_hf(raw: dict, param_dtype: str) -> DecoderConfig:
    """The DecoderConfig of a BLOOM config.json (ValueError naming a refused key)."""
    refuse(bool(raw.get("apply_residual_connection_post_layernorm", False)),
           "apply_residual_connection_post_layernorm=true is not supported (the residual would be the "
           "normed stream)")
    width = first_key(raw, ("hidden_size", "n_embed"), "bloom")
    refuse(bool(raw.get("slow_but_exact", False)) and raw.get("pretraining_tp", 1) > 1,
           "slow_but_exact=true with pretraining_tp > 1 is not supported (transformers then sums the sliced "
           "output projections without their biases)")
    n_inner = raw.get("n_inner")
    refuse(n_inner is not None and n_inner != 4 * width,
           f"n_inner={n_inner!r} is not supported (BLOOM's MLP width is 4 * hidden_size = {4 * width})")
    return alibi_config(raw, "bloom", FIXED, param_dtype, depth=first_key(raw, ("n_layer", "num_hidden_layers"),
                                                                          "bloom"),
                        width=width, heads=first_key(raw, ("n_head", "num_attention_heads"), "bloom"),
                        mlp_width=4 * width)


def mismatches(cfg: DecoderConfig) -> list[str]:
    """The fields that keep ``cfg`` from being exported as BLOOM (empty: it can be)."""
    return alibi_mismatches(cfg, FIXED, "")


def config_to_hf(cfg: DecoderConfig) -> dict:
    """The config.json dict (without dtype keys) describing ``cfg`` for BloomForCausalLM."""
    return dict(
        architectures=["BloomForCausalLM"], model_type="bloom", vocab_size=cfg.vocab_size,
        hidden_size=cfg.width, n_layer=cfg.depth, n_head=cfg.heads, layer_norm_epsilon=cfg.norm_eps,
        initializer_range=cfg.init_std, apply_residual_connection_post_layernorm=False,
        pretraining_tp=1, slow_but_exact=False, hidden_dropout=0.0, attention_dropout=0.0,
        tie_word_embeddings=cfg.tie_embeddings,
    )


def _fuse(parts, heads: int, xp):
    """q, k, v [..., N Dh] -> [..., N Dh 3] interleaved per head: [..., N, 3, Dh]."""
    lead = parts[0].shape[:-1]
    fused = xp.stack([xp.reshape(a, (*lead, heads, -1)) for a in parts], axis=-2)
    return xp.reshape(fused, (*lead, -1))


def _split(fused, heads: int, xp):
    """Inverse of :func:`_fuse`."""
    lead, width = fused.shape[:-1], fused.shape[-1] // 3
    grouped = xp.reshape(fused, (*lead, heads, 3, width // heads))
    return [xp.reshape(grouped[..., i, :], (*lead, width)) for i in range(3)]


LAYOUT = FusedQKVLayout(
    prefix=PREFIX, embedding=EMBEDDING, layer="h.{}.", final="ln_f",
    norms={"input_layernorm": "norm1", "post_attention_layernorm": "norm2"},
    linears={"self_attention.dense": ("attn", "o"), "mlp.dense_h_to_4h": ("mlp", "up"),
             "mlp.dense_4h_to_h": ("mlp", "down")},
    fused="self_attention.query_key_value", fuse=_fuse, split=_split)
to_hf = LAYOUT.to_hf
from_hf = LAYOUT.from_hf
