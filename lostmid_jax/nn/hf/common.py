"""Helpers the family modules share: config.json keys, export mismatches, tensor layouts.

Ours: a flat dict from parameter path (tuples like ("blocks", "attn", "q",
"kernel")) to arrays; block parameters are stacked on a leading layer axis
[H, ...]; every Linear kernel is [in, out]. torch Linear weights are
[out, in] (transposed); GPT-2's Conv1D weights are [in, out] like ours.
Every family: untied "lm_head.weight" [V, D] <- lm_head.kernel^T (no prefix).

The layout functions take an array module ``xp`` (numpy for real tensors,
jax.numpy under jax.eval_shape to get the expected shapes without allocating).
"""

from __future__ import annotations

import dataclasses
from typing import Callable

from ...untrusted import typed
from ..config import DecoderConfig

B = ("blocks",)
NORM_LEAVES = (("scale", "weight"), ("bias", "bias"))  # (our leaf, HF suffix)


# ----------------------------------------------------------------------------- config.json
BOOL_KEYS = ("tie_word_embeddings", "attention_bias", "mlp_bias", "use_sliding_window", "scale_attn_weights",
             "scale_attn_by_inverse_layer_idx", "apply_residual_connection_post_layernorm", "slow_but_exact",
             "no_bias", "use_cache", "reorder_and_upcast_attn")
FLOAT_KEYS = ("layer_norm_epsilon", "layer_norm_eps", "rms_norm_eps", "initializer_range", "rope_theta")
INT_KEYS = ("n_layer", "num_hidden_layers", "n_layers", "n_embd", "hidden_size", "d_model", "n_embed", "n_head",
            "num_attention_heads", "n_heads", "num_key_value_heads", "intermediate_size", "n_inner", "vocab_size",
            "n_positions", "max_position_embeddings", "max_seq_len", "head_dim", "sliding_window", "pretraining_tp")


NULLABLE_KEYS = ("n_inner", "num_key_value_heads", "head_dim", "sliding_window")
"""Size keys a real config.json sets to null to mean "the default" (4 D, = heads, D / heads, no window)."""


def check_types(raw: dict) -> dict:
    """``raw`` if the config.json values the families read have their JSON types: true/false for flags
    (``"tie_word_embeddings": "false"`` is a string, which Python's bool() would read as true; null is
    false, as in transformers), numbers for epsilons and scales (not a list, not null), integers for
    sizes (null only for NULLABLE_KEYS). ValueError naming the key and what it holds otherwise
    (:func:`lostmid_jax.untrusted.typed`)."""
    for key in BOOL_KEYS:
        typed(raw, key, "true or false", "config.json", nullable=True)
    for key in FLOAT_KEYS:
        typed(raw, key, "a number", "config.json")
    for key in INT_KEYS:
        typed(raw, key, "an integer", "config.json", nullable=key in NULLABLE_KEYS)
    return raw


def require(raw: dict, key: str, family: str):
    """raw[key] (ValueError naming the key when config.json lacks it)."""
    if key not in raw:
        raise ValueError(f"config.json ({family}) is missing the key {key!r}")
    return raw[key]


def first_key(raw: dict, keys: tuple[str, ...], family: str):
    """raw[k] for the first key present (config.json spells some sizes two ways)."""
    for key in keys:
        if key in raw:
            return raw[key]
    raise ValueError(f"config.json ({family}) is missing the key {keys[0]!r}")


def refuse(cond: bool, message: str) -> None:
    """ValueError "config.json <message>" when ``cond``."""
    if cond:
        raise ValueError(f"config.json {message}")


def head_dim(raw: dict, default: int | None = None) -> int | None:
    """head_dim (``default`` when missing), or None when it is hidden_size / num_attention_heads."""
    dim, width, heads = raw.get("head_dim", default), raw.get("hidden_size"), raw.get("num_attention_heads")
    if dim is not None and width is not None and heads and dim * heads == width:
        return None
    return dim


def fixed_mismatches(cfg: DecoderConfig, fixed: dict) -> list[str]:
    """"field=value (needs v)" for each field of ``cfg`` that differs from ``fixed``."""
    return [f"{k}={getattr(cfg, k)!r} (needs {v!r})" for k, v in fixed.items() if getattr(cfg, k) != v]


def plain_heads_mismatch(cfg: DecoderConfig) -> bool:
    """True unless ``cfg`` has plain multi-head attention with head_dim = width / heads."""
    return cfg.resolved_kv_heads != cfg.heads or cfg.resolved_head_dim * cfg.heads != cfg.width


# ----------------------------------------------------------------------------- tensors
def stack(t: dict, names, xp, *, transpose: bool = False):
    """[H, ...] from the per-layer tensors ``names`` (each transposed if asked)."""
    arrays = [t[n] for n in names]
    return xp.stack([xp.transpose(a) for a in arrays] if transpose else arrays)


def linear_to_hf(p: dict, name: str, path: tuple, depth: int, out: dict, *, transpose: bool, xp) -> None:
    """Per layer l: ``name.format(l)``.weight (and .bias) <- our blocks Linear at ``path``."""
    for l in range(depth):
        w = p[B + path + ("kernel",)][l]
        out[f"{name.format(l)}.weight"] = xp.transpose(w) if transpose else w
        if B + path + ("bias",) in p:
            out[f"{name.format(l)}.bias"] = p[B + path + ("bias",)][l]


def norm_to_hf(p: dict, name: str, path: tuple, layer: int | None, out: dict) -> None:
    """path: our norm's path; layer: index into the stacked layer axis or None."""
    pick = (lambda a: a) if layer is None else (lambda a: a[layer])
    out[f"{name}.weight"] = pick(p[path + ("scale",)])
    if path + ("bias",) in p:
        out[f"{name}.bias"] = pick(p[path + ("bias",)])


def lm_head_to_hf(p: dict, out: dict, xp) -> None:
    """An untied "lm_head.weight" [V, D] <- lm_head.kernel^T."""
    if ("lm_head", "kernel") in p:
        out["lm_head.weight"] = xp.transpose(p[("lm_head", "kernel")])


def lm_head_from_hf(t: dict, paths, p: dict, xp) -> None:
    if ("lm_head", "kernel") in paths:
        p[("lm_head", "kernel")] = xp.transpose(t["lm_head.weight"])


def layers_from_hf(t: dict, paths, p: dict, depth: int, xp, *, pre: str, layer: str, linears: dict,
                   norms: dict, final: str, transpose: bool) -> dict:
    """Fill ``p`` with the Linears and norms of every layer, the final norm and the LM head.

    Args:
      pre: the family's prefix; layer: the per-layer name with "{}" for l.
      linears: {HF name: our path under blocks}; norms: {HF name: our norm}.
      final: the final norm's HF name; transpose: torch Linear weights ([out, in]).
    """
    layers = range(depth)
    for hf, path in linears.items():
        for leaf in ("kernel", "bias"):
            if B + path + (leaf,) in paths:
                suffix = "weight" if leaf == "kernel" else "bias"
                names = [f"{pre}{layer.format(l)}{hf}.{suffix}" for l in layers]
                p[B + path + (leaf,)] = stack(t, names, xp, transpose=transpose and leaf == "kernel")
    for hf, ours in norms.items():
        for leaf, suffix in NORM_LEAVES:
            if B + (ours, leaf) in paths:
                p[B + (ours, leaf)] = stack(t, [f"{pre}{layer.format(l)}{hf}.{suffix}" for l in layers], xp)
    for leaf, suffix in NORM_LEAVES:
        if ("final_norm", leaf) in paths:
            p[("final_norm", leaf)] = t[f"{pre}{final}.{suffix}"]
    lm_head_from_hf(t, paths, p, xp)
    return p


# ----------------------------------------------------------------------------- ALiBi families
# BLOOM and MPT: LayerNorm decoders with ALiBi (the paper's slopes) and one fused q/k/v projection.
# Both write the ALiBi bias as + m_h j (BLOOM) or + m_h (j - L + 1) (MPT) on key j; under the causal
# softmax these equal our - m_h (i - j), since a row constant cancels.
ALIBI_FIXED = dict(attention="softmax", mask="causal", position="alibi", alibi_rule="alibi", norm="layernorm",
                   pre_norm=True, final_norm=True, residual=True, attn_mix=None, qk_norm=False, sinks=0,
                   rope_scaling=None)


def alibi_config(raw: dict, family: str, fixed: dict, param_dtype: str, **sizes) -> DecoderConfig:
    """The DecoderConfig from the family's sizes plus the keys BLOOM and MPT spell alike."""
    return DecoderConfig(
        **sizes, norm_eps=float(raw.get("layer_norm_epsilon", 1e-5)),
        vocab_size=first_key(raw, ("vocab_size",), family),
        tie_embeddings=bool(raw.get("tie_word_embeddings", True)),
        init="normal", init_std=float(raw.get("initializer_range", 0.02)),
        param_dtype=param_dtype, **fixed,
    )


def alibi_mismatches(cfg: DecoderConfig, fixed: dict, mlp_note: str) -> list[str]:
    """What keeps ``cfg`` from a BLOOM / MPT export: ``fixed``, plain heads, MLP width 4 D (``mlp_note``)."""
    out = fixed_mismatches(cfg, fixed)
    if plain_heads_mismatch(cfg):
        out.append("kv_heads/head_dim (plain multi-head attention with head_dim = width / heads)")
    if cfg.resolved_mlp_width != 4 * cfg.width:
        out.append(f"mlp_width={cfg.resolved_mlp_width} (needs 4 * width{mlp_note})")
    return out


@dataclasses.dataclass(frozen=True)
class FusedQKVLayout:
    """Tensor names of a family with one fused q/k/v projection (BLOOM, MPT); torch weights [out, in].

    Attributes:
      prefix, embedding: names of the token embedding (``prefix + embedding``).
      layer: per-layer name with "{}" for l; final: the final norm's name.
      norms: {HF name: our norm}; linears: {HF name: our path under blocks}; fused: the q/k/v projection.
      fuse: q, k, v [..., N Dh] -> the family's fused [..., 3 N Dh] (un-transposed);
      split: its inverse, on [..., 3 N Dh] with ``heads``.
    """

    prefix: str
    embedding: str
    layer: str
    final: str
    norms: dict
    linears: dict
    fused: str
    fuse: Callable
    split: Callable

    def _fuse(self, parts, heads: int, xp):
        """q, k, v kernels [D, N Dh] (or biases [N Dh]) -> the fused torch weight [3 D, D] (bias [3 D])."""
        fused = self.fuse(parts, heads, xp)
        return xp.transpose(fused) if fused.ndim == 2 else fused

    def _split(self, fused, heads: int, xp):
        """Inverse of :meth:`_fuse`, on a layer stack: [H, 3 D, D] -> 3 x [H, D, N Dh]; [H, 3 D] -> 3 x [H, N Dh]."""
        if fused.ndim == 3:
            fused = xp.transpose(fused, (0, 2, 1))  # [H, D, 3 D]
        return self.split(fused, heads, xp)

    def to_hf(self, p: dict, depth: int, xp, *, heads: int) -> dict:
        """HF state dict {name with the prefix: array} from our flat params ``p``."""
        pre, out = self.prefix, {}
        out[pre + self.embedding] = p[("wte",)]
        for ours, hf in NORM_LEAVES:
            if ("embed_norm", ours) in p:
                out[f"{pre}word_embeddings_layernorm.{hf}"] = p[("embed_norm", ours)]
        for l in range(depth):
            name = pre + self.layer.format(l)
            out[name + self.fused + ".weight"] = self._fuse([p[B + ("attn", n, "kernel")][l] for n in "qkv"],
                                                            heads, xp)
            if B + ("attn", "q", "bias") in p:
                out[name + self.fused + ".bias"] = self._fuse([p[B + ("attn", n, "bias")][l] for n in "qkv"],
                                                              heads, xp)
            for hf, path in self.linears.items():
                out[f"{name}{hf}.weight"] = xp.transpose(p[B + path + ("kernel",)][l])
                if B + path + ("bias",) in p:
                    out[f"{name}{hf}.bias"] = p[B + path + ("bias",)][l]
            for hf, ours in self.norms.items():
                for leaf, suffix in NORM_LEAVES:
                    if B + (ours, leaf) in p:
                        out[f"{name}{hf}.{suffix}"] = p[B + (ours, leaf)][l]
        for leaf, suffix in NORM_LEAVES:
            if ("final_norm", leaf) in p:
                out[f"{pre}{self.final}.{suffix}"] = p[("final_norm", leaf)]
        lm_head_to_hf(p, out, xp)
        return out

    def from_hf(self, t: dict, paths, depth: int, xp, *, heads: int) -> dict:
        """Our flat params {path: array} for the wanted ``paths`` from a checked HF state dict ``t``
        (exactly the names :meth:`to_hf` produces, with matching shapes)."""
        pre, paths, p = self.prefix, set(paths), {}
        names = [pre + self.layer.format(l) for l in range(depth)]

        def stacked(suffix, transpose=False):
            return xp.stack([xp.transpose(t[n + suffix]) if transpose else t[n + suffix] for n in names])

        p[("wte",)] = t[pre + self.embedding]
        for ours, hf in NORM_LEAVES:
            if ("embed_norm", ours) in paths:
                p[("embed_norm", ours)] = t[f"{pre}word_embeddings_layernorm.{hf}"]
        for leaf, suffix in (("kernel", ".weight"), ("bias", ".bias")):
            if B + ("attn", "q", leaf) in paths:
                for n, part in zip("qkv", self._split(stacked(self.fused + suffix), heads, xp)):
                    p[B + ("attn", n, leaf)] = part
        for hf, path in self.linears.items():
            p[B + path + ("kernel",)] = stacked(f"{hf}.weight", transpose=True)
            if B + path + ("bias",) in paths:
                p[B + path + ("bias",)] = stacked(f"{hf}.bias")
        for hf, ours in self.norms.items():
            for leaf, suffix in NORM_LEAVES:
                if B + (ours, leaf) in paths:
                    p[B + (ours, leaf)] = stacked(f"{hf}.{suffix}")
        for leaf, suffix in NORM_LEAVES:
            if ("final_norm", leaf) in paths:
                p[("final_norm", leaf)] = t[f"{pre}{self.final}.{suffix}"]
        lm_head_from_hf(t, paths, p, xp)
        return p
