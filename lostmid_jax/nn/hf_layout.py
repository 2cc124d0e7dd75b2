"""Tensor names and layouts: our Decoder parameters <-> Hugging Face state dicts.

Ours: a flat dict from parameter path (tuples like ("blocks", "attn", "q",
"kernel")) to arrays; block parameters are stacked on a leading layer axis
[H, ...]; every Linear kernel is [in, out].

GPT-2 (names under "transformer."; Conv1D weights are [in, out] like ours):

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

Qwen2 (names under "model."; torch Linear weights are [out, in], transposed):

    embed_tokens.weight [V, D]                         <- wte
    layers.l.input_layernorm.weight [D]                <- blocks.norm1.scale[l]
    layers.l.self_attn.{q,k,v}_proj.{weight [N Dh|G Dh, D], bias}  <- blocks.attn.{q,k,v}[l]
    layers.l.self_attn.o_proj.weight [D, N Dh]           <- blocks.attn.o.kernel[l]^T (no bias)
    layers.l.post_attention_layernorm.weight [D]       <- blocks.norm2.scale[l]
    layers.l.mlp.{gate,up,down}_proj.weight            <- blocks.mlp.{gate,up,down}.kernel[l]^T
    norm.weight [D]                                    <- final_norm.scale

Llama, Mistral and Qwen3 use Qwen2's names (biases only where the config
has them); Qwen3 adds

    layers.l.self_attn.{q,k}_norm.weight [Dh]          <- blocks.attn.{q,k}_norm.scale[l]

All: untied "lm_head.weight" [V, D] <- lm_head.kernel^T (no prefix).

The functions take an array module ``xp`` (numpy for real tensors, jax.numpy
under jax.eval_shape to get the expected shapes without allocating).
"""

from __future__ import annotations

from . import hf_alibi_families as alibi

PREFIX = {"gpt2": "transformer.", "qwen2": "model.", **alibi.PREFIX}  # BLOOM / MPT: hf_alibi_families
PREFIX.update(llama="model.", mistral="model.", qwen3="model.")  # Qwen2's names (and Qwen3's q/k norms)
# Buffers some checkpoints carry that hold no parameters (causal masks, RoPE tables).
IGNORED_SUFFIXES = (".attn.bias", ".attn.masked_bias", ".rotary_emb.inv_freq")

_B = ("blocks",)
_GPT2_LINEARS = {"attn.c_proj": ("attn", "o"), "mlp.c_fc": ("mlp", "up"), "mlp.c_proj": ("mlp", "down")}
_GPT2_NORMS = {"ln_1": "norm1", "ln_2": "norm2"}
_QWEN2_LINEARS = {f"self_attn.{n}_proj": ("attn", n) for n in "qkvo"}
_QWEN2_LINEARS.update({f"mlp.{n}_proj": ("mlp", n) for n in ("gate", "up", "down")})
_QWEN2_NORMS = {"input_layernorm": "norm1", "post_attention_layernorm": "norm2"}
_QK_NORMS = {"self_attn.q_norm": ("attn", "q_norm"), "self_attn.k_norm": ("attn", "k_norm")}  # Qwen3


def _qk_norms_to_hf(p, pre, depth, out):
    """Qwen3's per-head q/k RMSNorm scales [Dh], when the model has them."""
    for hf, path in _QK_NORMS.items():
        if _B + path + ("scale",) in p:
            for l in range(depth):
                out[f"{pre}layers.{l}.{hf}.weight"] = p[_B + path + ("scale",)][l]


def _qk_norms_from_hf(t, pre, paths, depth, xp, p):
    for hf, path in _QK_NORMS.items():
        if _B + path + ("scale",) in paths:
            p[_B + path + ("scale",)] = _stack(t, [f"{pre}layers.{l}.{hf}.weight" for l in range(depth)], xp)


def _linear_to_hf(p, name, path, depth, out, *, transpose, xp):
    for l in range(depth):
        w = p[_B + path + ("kernel",)][l]
        out[f"{name.format(l)}.weight"] = xp.transpose(w) if transpose else w
        if _B + path + ("bias",) in p:
            out[f"{name.format(l)}.bias"] = p[_B + path + ("bias",)][l]


def _norm_to_hf(p, name, path, layer, out):
    """path: our norm's path; layer: index into the stacked layer axis or None."""
    pick = (lambda a: a) if layer is None else (lambda a: a[layer])
    out[f"{name}.weight"] = pick(p[path + ("scale",)])
    if path + ("bias",) in p:
        out[f"{name}.bias"] = pick(p[path + ("bias",)])


def to_hf(family: str, p: dict, depth: int, xp, *, heads: int | None = None) -> dict:
    """HF state dict {name (with the family's prefix): array} from our flat params ``p``
    (``heads``: the query heads, needed by BLOOM's per-head fused qkv)."""
    if family in alibi.FAMILIES:
        return alibi.to_hf(family, p, depth, heads, xp)
    pre, out = PREFIX[family], {}
    if family == "gpt2":
        out[pre + "wte.weight"] = p[("wte",)]
        out[pre + "wpe.weight"] = p[("wpe",)]
        qkv = [p[_B + ("attn", n, "kernel")] for n in "qkv"]
        qkv_b = [p[_B + ("attn", n, "bias")] for n in "qkv"]
        for l in range(depth):
            out[f"{pre}h.{l}.attn.c_attn.weight"] = xp.concatenate([w[l] for w in qkv], axis=1)
            out[f"{pre}h.{l}.attn.c_attn.bias"] = xp.concatenate([b[l] for b in qkv_b], axis=0)
            for hf, ours in _GPT2_NORMS.items():
                _norm_to_hf(p, f"{pre}h.{l}.{hf}", _B + (ours,), l, out)
        for hf, path in _GPT2_LINEARS.items():
            _linear_to_hf(p, pre + "h.{}." + hf, path, depth, out, transpose=False, xp=xp)
        _norm_to_hf(p, pre + "ln_f", ("final_norm",), None, out)
    else:
        out[pre + "embed_tokens.weight"] = p[("wte",)]
        for hf, path in _QWEN2_LINEARS.items():
            _linear_to_hf(p, pre + "layers.{}." + hf, path, depth, out, transpose=True, xp=xp)
        for l in range(depth):
            for hf, ours in _QWEN2_NORMS.items():
                _norm_to_hf(p, f"{pre}layers.{l}.{hf}", _B + (ours,), l, out)
        _qk_norms_to_hf(p, pre, depth, out)
        _norm_to_hf(p, pre + "norm", ("final_norm",), None, out)
    if ("lm_head", "kernel") in p:
        out["lm_head.weight"] = xp.transpose(p[("lm_head", "kernel")])
    return out


def _stack(t, names, xp, *, transpose=False):
    arrays = [t[n] for n in names]
    return xp.stack([xp.transpose(a) for a in arrays] if transpose else arrays)


def from_hf(family: str, t: dict, paths, depth: int, xp, *, heads: int | None = None) -> dict:
    """Our flat params {path: array} for the wanted ``paths`` from a checked HF state dict ``t``.

    ``t`` must hold exactly the names :func:`to_hf` produces, with matching shapes.
    """
    if family in alibi.FAMILIES:
        return alibi.from_hf(family, t, paths, depth, heads, xp)
    pre, paths, p = PREFIX[family], set(paths), {}
    layers = range(depth)
    if family == "gpt2":
        p[("wte",)], p[("wpe",)] = t[pre + "wte.weight"], t[pre + "wpe.weight"]
        w = _stack(t, [f"{pre}h.{l}.attn.c_attn.weight" for l in layers], xp)  # [H, D, 3D]
        b = _stack(t, [f"{pre}h.{l}.attn.c_attn.bias" for l in layers], xp)  # [H, 3D]
        for i, n in enumerate("qkv"):
            width = w.shape[2] // 3
            p[_B + ("attn", n, "kernel")] = w[:, :, i * width:(i + 1) * width]
            p[_B + ("attn", n, "bias")] = b[:, i * width:(i + 1) * width]
        linears, norms, transpose, layer_fmt, final = _GPT2_LINEARS, _GPT2_NORMS, False, "h.{}.", "ln_f"
    else:
        p[("wte",)] = t[pre + "embed_tokens.weight"]
        _qk_norms_from_hf(t, pre, paths, depth, xp, p)
        linears, norms, transpose, layer_fmt, final = _QWEN2_LINEARS, _QWEN2_NORMS, True, "layers.{}.", "norm"
    for hf, path in linears.items():
        for leaf in ("kernel", "bias"):
            if _B + path + (leaf,) in paths:
                suffix = "weight" if leaf == "kernel" else "bias"
                names = [f"{pre}{layer_fmt.format(l)}{hf}.{suffix}" for l in layers]
                p[_B + path + (leaf,)] = _stack(t, names, xp, transpose=transpose and leaf == "kernel")
    for hf, ours in norms.items():
        for leaf, suffix in (("scale", "weight"), ("bias", "bias")):
            if _B + (ours, leaf) in paths:
                p[_B + (ours, leaf)] = _stack(t, [f"{pre}{layer_fmt.format(l)}{hf}.{suffix}" for l in layers], xp)
    for leaf, suffix in (("scale", "weight"), ("bias", "bias")):
        if ("final_norm", leaf) in paths:
            p[("final_norm", leaf)] = t[f"{pre}{final}.{suffix}"]
    if ("lm_head", "kernel") in paths:
        p[("lm_head", "kernel")] = xp.transpose(t["lm_head.weight"])
    return p
