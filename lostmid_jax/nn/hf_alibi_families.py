"""Hugging Face BLOOM and MPT, the ALiBi families: config.json <-> DecoderConfig and tensor layouts.

BLOOM (BloomForCausalLM): word_embeddings, then word_embeddings_layernorm on
the input embeddings (``embed_norm``), pre-norm LayerNorm blocks with biases,
a fused query_key_value projection, GELU (tanh approximation), MLP width 4 D,
final LayerNorm ln_f, tied LM head, ALiBi with the paper's slopes.
MPT (MptForCausalLM): wte, LayerNorm without bias, no bias in any
projection, a fused Wqkv, exact (erf) GELU, MLP width expansion_ratio * D,
final norm_f, tied LM head, ALiBi with the paper's slopes (alibi_bias_max 8;
transformers' ordering concat(slopes[1::2], slopes[::2]) of the next power
of two is the same rule).

Both write the ALiBi bias as + m_h j (BLOOM) or + m_h (j - L + 1) (MPT) on
key j; under the causal softmax these equal our - m_h (i - j), since a
row constant cancels.

Tensor layouts (torch Linear weights are [out, in]; ours [in, out]; block
parameters stacked [H, ...]; N heads, Dh head dim, F MLP width):

BLOOM, names under "transformer.":

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

MPT, names under "transformer.":

    wte.weight [V, D]                                    <- wte
    blocks.l.norm_1.weight, blocks.l.norm_2.weight [D]   <- blocks.norm{1,2}.scale[l]
    blocks.l.attn.Wqkv.weight [3 D, D]                   <- concat(q, k, v kernels, axis 1)[l]^T
    blocks.l.attn.out_proj.weight [D, D]                 <- blocks.attn.o.kernel[l]^T
    blocks.l.ffn.up_proj.weight [F, D], ffn.down_proj.weight [D, F]  <- blocks.mlp.{up,down}[l]^T
    norm_f.weight [D]                                    <- final_norm.scale

Both: untied "lm_head.weight" [V, D] <- lm_head.kernel^T.

Refused variants (ValueError naming the config.json key): BLOOM
apply_residual_connection_post_layernorm=true (the residual is the normed
stream), slow_but_exact=true with pretraining_tp > 1 (transformers then
drops the biases of self_attention.dense and mlp.dense_4h_to_h) and n_inner
other than null / 4 D (transformers builds 4 D anyway);
MPT attn_config.alibi=false (learned positions instead; transformers ignores
the key), alibi_bias_max other than 8 (transformers ignores it and uses 8),
clip_qkv, qk_ln, prefix_lm, attn_type other than "multihead_attention",
softmax_scale other than null or 1 / sqrt(Dh), attn_impl other than
"torch" / "flash" / "triton" (these three are one function), no_bias=false,
logit_scale not null (transformers ignores both), and norm_type other than
"low_precision_layernorm" / "layernorm". Accepted because they leave the
function unchanged: BLOOM pretraining_tp alone, and slow_but_exact with
pretraining_tp 1 (no effect), dropouts, MPT
attn_uses_sequence_id (needs sequence ids, which a forward pass does not
take), embedding_fraction (a gradient scale), learned_pos_emb (no table
exists with ALiBi). MPT's expansion_ratio must be 4: transformers'
MptForCausalLM builds an MLP of width 4 D whatever the ratio says, so a
checkpoint it writes with another ratio disagrees with its own config.
"""

from __future__ import annotations

import math

from .config import DecoderConfig

FAMILIES = ("bloom", "mpt")
PREFIX = {"bloom": "transformer.", "mpt": "transformer."}
EMBEDDING = {"bloom": "word_embeddings.weight", "mpt": "wte.weight"}

_COMMON = dict(attention="softmax", mask="causal", position="alibi", alibi_rule="alibi", norm="layernorm",
               pre_norm=True, final_norm=True, residual=True, attn_mix=None, qk_norm=False, sinks=0,
               rope_scaling=None)
FIXED = {
    "bloom": dict(_COMMON, norm_bias=True, embed_norm=True, mlp="gelu", qkv_bias=True, out_bias=True,
                  mlp_bias=True),
    "mpt": dict(_COMMON, norm_bias=False, embed_norm=False, mlp="gelu-exact", qkv_bias=False, out_bias=False,
                mlp_bias=False),
}
_MPT_ATTN_IMPLS = ("torch", "flash", "triton")
_MPT_NORMS = ("low_precision_layernorm", "layernorm")
_B = ("blocks",)


# ----------------------------------------------------------------------------- config.json
def _first(raw: dict, keys: tuple[str, ...], family: str):
    """raw[k] for the first key present (config.json spells some sizes two ways)."""
    for key in keys:
        if key in raw:
            return raw[key]
    raise ValueError(f"config.json ({family}) is missing the key {keys[0]!r}")


def _refuse(cond: bool, message: str) -> None:
    if cond:
        raise ValueError(f"config.json {message}")


def _config(raw: dict, family: str, param_dtype: str, **sizes) -> DecoderConfig:
    """The DecoderConfig from the family's sizes plus the keys BLOOM and MPT spell alike."""
    return DecoderConfig(
        **sizes, norm_eps=float(raw.get("layer_norm_epsilon", 1e-5)),
        vocab_size=_first(raw, ("vocab_size",), family),
        tie_embeddings=bool(raw.get("tie_word_embeddings", True)),
        init="normal", init_std=float(raw.get("initializer_range", 0.02)),
        param_dtype=param_dtype, **FIXED[family],
    )


def _bloom(raw: dict, param_dtype: str) -> DecoderConfig:
    _refuse(bool(raw.get("apply_residual_connection_post_layernorm", False)),
            "apply_residual_connection_post_layernorm=true is not supported (the residual would be the "
            "normed stream)")
    width = _first(raw, ("hidden_size", "n_embed"), "bloom")
    _refuse(bool(raw.get("slow_but_exact", False)) and raw.get("pretraining_tp", 1) > 1,
            "slow_but_exact=true with pretraining_tp > 1 is not supported (transformers then sums the sliced "
            "output projections without their biases)")
    n_inner = raw.get("n_inner")
    _refuse(n_inner is not None and n_inner != 4 * width,
            f"n_inner={n_inner!r} is not supported (BLOOM's MLP width is 4 * hidden_size = {4 * width})")
    return _config(raw, "bloom", param_dtype, depth=_first(raw, ("n_layer", "num_hidden_layers"), "bloom"),
                   width=width, heads=_first(raw, ("n_head", "num_attention_heads"), "bloom"), mlp_width=4 * width)


def _mpt_attention(attn: dict, width: int, heads: int) -> None:
    """Refuse the attn_config variants our stack does not compute."""
    if not isinstance(attn, dict):
        raise ValueError(f"config.json attn_config must be an object, got {type(attn).__name__}")
    _refuse(attn.get("alibi", True) is not True,
            "attn_config.alibi=false is not supported (MPT without ALiBi uses learned positions, which "
            "transformers' MptForCausalLM does not implement)")
    _refuse(attn.get("alibi_bias_max", 8) != 8,
            f"attn_config.alibi_bias_max={attn.get('alibi_bias_max')!r} is not supported (only 8; transformers "
            "ignores the key and uses 8)")
    _refuse(attn.get("clip_qkv") is not None, f"attn_config.clip_qkv={attn.get('clip_qkv')!r} is not supported "
            "(only null: no clamping of q, k, v)")
    _refuse(bool(attn.get("qk_ln", False)), "attn_config.qk_ln=true is not supported")
    _refuse(bool(attn.get("prefix_lm", False)), "attn_config.prefix_lm=true is not supported")
    _refuse(attn.get("attn_type", "multihead_attention") != "multihead_attention",
            f"attn_config.attn_type={attn.get('attn_type')!r} is not supported (only 'multihead_attention')")
    _refuse(attn.get("attn_impl", "torch") not in _MPT_ATTN_IMPLS,
            f"attn_config.attn_impl={attn.get('attn_impl')!r} is not supported (one of {_MPT_ATTN_IMPLS})")
    scale = attn.get("softmax_scale")
    if scale is not None and width % heads == 0:
        _refuse(not math.isclose(float(scale), 1.0 / math.sqrt(width // heads), rel_tol=1e-12),
                f"attn_config.softmax_scale={scale!r} is not supported (only null or 1 / sqrt(head_dim) = "
                f"{1.0 / math.sqrt(width // heads)!r})")


def _mpt(raw: dict, param_dtype: str) -> DecoderConfig:
    width = _first(raw, ("d_model", "hidden_size"), "mpt")
    heads = _first(raw, ("n_heads", "num_attention_heads"), "mpt")
    _mpt_attention(raw.get("attn_config") or {}, width, heads)
    _refuse(raw.get("no_bias", True) is not True,
            "no_bias=false is not supported (transformers' MptForCausalLM has no biases)")
    _refuse(raw.get("logit_scale") is not None,
            f"logit_scale={raw.get('logit_scale')!r} is not supported (only null; transformers ignores it)")
    _refuse(raw.get("norm_type", "low_precision_layernorm") not in _MPT_NORMS,
            f"norm_type={raw.get('norm_type')!r} is not supported (one of {_MPT_NORMS})")
    ratio = raw.get("expansion_ratio", 4)
    _refuse(isinstance(ratio, bool) or ratio != 4,
            f"expansion_ratio={ratio!r} is not supported (only 4: transformers' MptForCausalLM builds an MLP "
            "of width 4 * d_model whatever the ratio, so its checkpoints with another ratio contradict their config)")
    return _config(raw, "mpt", param_dtype, depth=_first(raw, ("n_layers", "num_hidden_layers"), "mpt"),
                   width=width, heads=heads, mlp_width=ratio * width,
                   max_positions=int(raw.get("max_seq_len", 2048)))


def config_from_hf(family: str, raw: dict, param_dtype: str) -> DecoderConfig:
    """The DecoderConfig of a BLOOM or MPT config.json (ValueError naming a refused key)."""
    return _bloom(raw, param_dtype) if family == "bloom" else _mpt(raw, param_dtype)


def _mismatches(cfg: DecoderConfig, family: str) -> list[str]:
    out = [f"{k}={getattr(cfg, k)!r} (needs {v!r})" for k, v in FIXED[family].items() if getattr(cfg, k) != v]
    if cfg.resolved_kv_heads != cfg.heads or cfg.resolved_head_dim * cfg.heads != cfg.width:
        out.append("kv_heads/head_dim (plain multi-head attention with head_dim = width / heads)")
    f = cfg.resolved_mlp_width
    if family == "bloom" and f != 4 * cfg.width:
        out.append(f"mlp_width={f} (needs 4 * width)")
    if family == "mpt" and f != 4 * cfg.width:
        out.append(f"mlp_width={f} (needs 4 * width, as transformers' MptForCausalLM builds)")
    return out


def family_of(cfg: DecoderConfig) -> str:
    """"bloom" or "mpt" for an ALiBi DecoderConfig (ValueError listing what keeps it from either)."""
    problems = {family: _mismatches(cfg, family) for family in FAMILIES}
    for family, found in problems.items():
        if not found:
            return family
    raise ValueError(f"cfg has position='alibi', used only by BLOOM and MPT, and matches neither "
                     f"BLOOM ({', '.join(problems['bloom'])}) "
                     f"nor MPT ({', '.join(problems['mpt'])})")


def config_to_hf(cfg: DecoderConfig, family: str) -> dict:
    """The config.json dict (without dtype keys) describing ``cfg`` for BloomForCausalLM / MptForCausalLM."""
    if family == "bloom":
        return dict(
            architectures=["BloomForCausalLM"], model_type="bloom", vocab_size=cfg.vocab_size,
            hidden_size=cfg.width, n_layer=cfg.depth, n_head=cfg.heads, layer_norm_epsilon=cfg.norm_eps,
            initializer_range=cfg.init_std, apply_residual_connection_post_layernorm=False,
            pretraining_tp=1, slow_but_exact=False, hidden_dropout=0.0, attention_dropout=0.0,
            tie_word_embeddings=cfg.tie_embeddings,
        )
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


# ----------------------------------------------------------------------------- tensors
_LAYER = {"bloom": "h.{}.", "mpt": "blocks.{}."}
_FINAL = {"bloom": "ln_f", "mpt": "norm_f"}
_NORMS = {
    "bloom": {"input_layernorm": "norm1", "post_attention_layernorm": "norm2"},
    "mpt": {"norm_1": "norm1", "norm_2": "norm2"},
}
_LINEARS = {  # HF name -> our path under blocks (torch layout: transposed)
    "bloom": {"self_attention.dense": ("attn", "o"), "mlp.dense_h_to_4h": ("mlp", "up"),
              "mlp.dense_4h_to_h": ("mlp", "down")},
    "mpt": {"attn.out_proj": ("attn", "o"), "ffn.up_proj": ("mlp", "up"), "ffn.down_proj": ("mlp", "down")},
}
_FUSED = {"bloom": "self_attention.query_key_value", "mpt": "attn.Wqkv"}
_NORM_LEAVES = (("scale", "weight"), ("bias", "bias"))


def _fuse(parts, family: str, heads: int, xp):
    """q, k, v kernels [D, N Dh] (or biases [N Dh]) -> the fused torch weight [3 D, D] (bias [3 D])."""
    lead = parts[0].shape[:-1]
    if family == "mpt":
        fused = xp.concatenate(parts, axis=-1)
    else:  # BLOOM interleaves per head: [..., N, 3, Dh]
        fused = xp.stack([xp.reshape(a, (*lead, heads, -1)) for a in parts], axis=-2)
        fused = xp.reshape(fused, (*lead, -1))
    return xp.transpose(fused) if fused.ndim == 2 else fused


def _split(fused, family: str, heads: int, xp):
    """Inverse of :func:`_fuse`, on a layer stack: [H, 3 D, D] -> 3 x [H, D, N Dh]; [H, 3 D] -> 3 x [H, N Dh]."""
    if fused.ndim == 3:
        fused = xp.transpose(fused, (0, 2, 1))  # [H, D, 3 D]
    lead, width = fused.shape[:-1], fused.shape[-1] // 3
    if family == "mpt":
        return [fused[..., i * width:(i + 1) * width] for i in range(3)]
    grouped = xp.reshape(fused, (*lead, heads, 3, width // heads))
    return [xp.reshape(grouped[..., i, :], (*lead, width)) for i in range(3)]


def to_hf(family: str, p: dict, depth: int, heads: int, xp) -> dict:
    """HF state dict {name with "transformer." prefix: array} from our flat params ``p``."""
    pre, layer, out = PREFIX[family], _LAYER[family], {}
    out[pre + EMBEDDING[family]] = p[("wte",)]
    for ours, hf in _NORM_LEAVES:
        if ("embed_norm", ours) in p:
            out[f"{pre}word_embeddings_layernorm.{hf}"] = p[("embed_norm", ours)]
    for l in range(depth):
        name = pre + layer.format(l)
        out[name + _FUSED[family] + ".weight"] = _fuse([p[_B + ("attn", n, "kernel")][l] for n in "qkv"],
                                                      family, heads, xp)
        if _B + ("attn", "q", "bias") in p:
            out[name + _FUSED[family] + ".bias"] = _fuse([p[_B + ("attn", n, "bias")][l] for n in "qkv"],
                                                        family, heads, xp)
        for hf, path in _LINEARS[family].items():
            out[f"{name}{hf}.weight"] = xp.transpose(p[_B + path + ("kernel",)][l])
            if _B + path + ("bias",) in p:
                out[f"{name}{hf}.bias"] = p[_B + path + ("bias",)][l]
        for hf, ours in _NORMS[family].items():
            for leaf, suffix in _NORM_LEAVES:
                if _B + (ours, leaf) in p:
                    out[f"{name}{hf}.{suffix}"] = p[_B + (ours, leaf)][l]
    for leaf, suffix in _NORM_LEAVES:
        if ("final_norm", leaf) in p:
            out[f"{pre}{_FINAL[family]}.{suffix}"] = p[("final_norm", leaf)]
    if ("lm_head", "kernel") in p:
        out["lm_head.weight"] = xp.transpose(p[("lm_head", "kernel")])
    return out


def from_hf(family: str, t: dict, paths, depth: int, heads: int, xp) -> dict:
    """Our flat params {path: array} for the wanted ``paths`` from a checked HF state dict ``t``
    (exactly the names :func:`to_hf` produces, with matching shapes)."""
    pre, paths, p = PREFIX[family], set(paths), {}
    names = [pre + _LAYER[family].format(l) for l in range(depth)]

    def stack(suffix, transpose=False):
        return xp.stack([xp.transpose(t[n + suffix]) if transpose else t[n + suffix] for n in names])

    p[("wte",)] = t[pre + EMBEDDING[family]]
    for ours, hf in _NORM_LEAVES:
        if ("embed_norm", ours) in paths:
            p[("embed_norm", ours)] = t[f"{pre}word_embeddings_layernorm.{hf}"]
    for leaf, suffix in (("kernel", ".weight"), ("bias", ".bias")):
        if _B + ("attn", "q", leaf) in paths:
            for n, part in zip("qkv", _split(stack(_FUSED[family] + suffix), family, heads, xp)):
                p[_B + ("attn", n, leaf)] = part
    for hf, path in _LINEARS[family].items():
        p[_B + path + ("kernel",)] = stack(f"{hf}.weight", transpose=True)
        if _B + path + ("bias",) in paths:
            p[_B + path + ("bias",)] = stack(f"{hf}.bias")
    for hf, ours in _NORMS[family].items():
        for leaf, suffix in _NORM_LEAVES:
            if _B + (ours, leaf) in paths:
                p[_B + (ours, leaf)] = stack(f"{hf}.{suffix}")
    for leaf, suffix in _NORM_LEAVES:
        if ("final_norm", leaf) in paths:
            p[("final_norm", leaf)] = t[f"{pre}{_FINAL[family]}.{suffix}"]
    if ("lm_head", "kernel") in paths:
        p[("lm_head", "kernel")] = xp.transpose(t["lm_head.weight"])
    return p
