"""Hugging Face config.json <-> DecoderConfig for the GPT-2 and Qwen2 families (Llama,
Mistral, Qwen3: nn/hf_rope_families.py; BLOOM, MPT: nn/hf_alibi_families.py).

GPT-2 keys read: n_layer (H), n_embd (D), n_head, n_inner (MLP width, null =
4 D), n_positions, layer_norm_epsilon, vocab_size, activation_function
("gelu_new" / "gelu_pytorch_tanh": the tanh GELU), initializer_range,
tie_word_embeddings.

Qwen2 keys read: num_hidden_layers (H), hidden_size (D), num_attention_heads,
num_key_value_heads, head_dim (optional), intermediate_size, rms_norm_eps,
rope_theta (or rope_parameters.rope_theta, transformers >= 5),
vocab_size, tie_word_embeddings, max_position_embeddings, hidden_act
("silu"), initializer_range.

Variants our stack does not implement (GPT-2 scale_attn_weights=false or
scale_attn_by_inverse_layer_idx, Qwen2 use_sliding_window, rope scaling)
raise ValueError naming the key.
"""

from __future__ import annotations

import json
import pathlib

from . import hf_alibi_families as alibi
from . import hf_rope_families as rope
from .config import DecoderConfig

FAMILIES = ("gpt2", "qwen2") + alibi.FAMILIES + rope.FAMILIES  # BLOOM / MPT: hf_alibi_families; Llama /
# Mistral / Qwen3: hf_rope_families
_GELU_TANH = ("gelu_new", "gelu_pytorch_tanh", "gelu_fast")

# Fields a DecoderConfig must have to be exported as each family.
_GPT2_FIXED = dict(attention="softmax", mask="causal", position="learned", norm="layernorm",
                   norm_bias=True, pre_norm=True, final_norm=True, mlp="gelu", qkv_bias=True,
                   out_bias=True, mlp_bias=True, residual=True, attn_mix=None, qk_norm=False, sinks=0,
                   rope_scaling=None)
_QWEN2_FIXED = dict(attention="softmax", mask="causal", position="rope", norm="rmsnorm",
                    pre_norm=True, final_norm=True, mlp="swiglu", qkv_bias=True, out_bias=False,
                    mlp_bias=False, residual=True, attn_mix=None, qk_norm=False, sinks=0,
                    rope_scaling=None)


WEIGHTS = "model.safetensors"
INDEX = "model.safetensors.index.json"


def read_json_object(file: pathlib.Path, what: str) -> dict:
    """The JSON object in ``file`` (ValueError naming the file when it is not JSON or not an object)."""
    try:
        value = json.loads(file.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{what} {str(file)!r} is not valid JSON ({err})") from None
    if not isinstance(value, dict):
        raise ValueError(f"{what} {str(file)!r} must hold a JSON object, got a {type(value).__name__}")
    return value


def read_config(path: str | pathlib.Path) -> dict:
    """The parsed config.json of checkpoint directory ``path`` (FileNotFoundError / ValueError naming it)."""
    path = pathlib.Path(path)
    if not path.is_dir():
        raise FileNotFoundError(f"path {str(path)!r} is not a directory")
    config = path / "config.json"
    if not config.is_file():
        raise FileNotFoundError(f"path {str(path)!r} has no config.json")
    return read_json_object(config, "config")


def weights_file(path: str | pathlib.Path) -> pathlib.Path:
    """The weights of checkpoint directory ``path``: model.safetensors or the sharded index
    (FileNotFoundError naming the directory when neither is there)."""
    path = pathlib.Path(path)
    for name in (WEIGHTS, INDEX):
        if (path / name).is_file():
            return path / name
    raise FileNotFoundError(f"path {str(path)!r} has neither {WEIGHTS} nor {INDEX}")


def _require(raw: dict, key: str, family: str):
    if key not in raw:
        raise ValueError(f"config.json ({family}) is missing the key {key!r}")
    return raw[key]


def _gpt2(raw: dict, param_dtype: str) -> DecoderConfig:
    act = raw.get("activation_function", "gelu_new")
    if act not in _GELU_TANH:
        raise ValueError(f"config.json activation_function={act!r} is not supported (expected one of {_GELU_TANH})")
    if raw.get("scale_attn_weights", True) is not True:
        raise ValueError("config.json scale_attn_weights=false is not supported")
    if raw.get("scale_attn_by_inverse_layer_idx", False):
        raise ValueError("config.json scale_attn_by_inverse_layer_idx=true is not supported")
    return DecoderConfig(
        depth=_require(raw, "n_layer", "gpt2"), width=_require(raw, "n_embd", "gpt2"),
        heads=_require(raw, "n_head", "gpt2"), mlp_width=raw.get("n_inner"),
        max_positions=_require(raw, "n_positions", "gpt2"),
        norm_eps=float(raw.get("layer_norm_epsilon", 1e-5)),
        vocab_size=_require(raw, "vocab_size", "gpt2"),
        tie_embeddings=bool(raw.get("tie_word_embeddings", True)),
        init="gpt2", init_std=float(raw.get("initializer_range", 0.02)),
        param_dtype=param_dtype, **_GPT2_FIXED,
    )


def _rope_theta(raw: dict) -> float:
    params = raw.get("rope_parameters") or {}
    scaling = raw.get("rope_scaling") or {}
    kind = params.get("rope_type", scaling.get("rope_type", scaling.get("type", "default")))
    if kind != "default":
        raise ValueError(f"config.json rope_type={kind!r} is not supported (only 'default')")
    theta = params.get("rope_theta", raw.get("rope_theta", 10000.0))
    return float(theta)


def _head_dim(raw: dict) -> int | None:
    """head_dim, or None when it is the default hidden_size / num_attention_heads."""
    head_dim, width, heads = raw.get("head_dim"), raw.get("hidden_size"), raw.get("num_attention_heads")
    if head_dim is not None and width is not None and heads and head_dim * heads == width:
        return None
    return head_dim


def _qwen2(raw: dict, param_dtype: str) -> DecoderConfig:
    if raw.get("hidden_act", "silu") != "silu":
        raise ValueError(f"config.json hidden_act={raw['hidden_act']!r} is not supported (expected 'silu')")
    if raw.get("use_sliding_window", False):
        raise ValueError("config.json use_sliding_window=true is not supported")
    return DecoderConfig(
        depth=_require(raw, "num_hidden_layers", "qwen2"), width=_require(raw, "hidden_size", "qwen2"),
        heads=_require(raw, "num_attention_heads", "qwen2"),
        kv_heads=raw.get("num_key_value_heads"), head_dim=_head_dim(raw),
        mlp_width=_require(raw, "intermediate_size", "qwen2"),
        norm_eps=float(raw.get("rms_norm_eps", 1e-6)), rope_theta=_rope_theta(raw),
        max_positions=int(raw.get("max_position_embeddings", 32768)),
        vocab_size=_require(raw, "vocab_size", "qwen2"),
        tie_embeddings=bool(raw.get("tie_word_embeddings", False)),
        init="normal", init_std=float(raw.get("initializer_range", 0.02)),
        param_dtype=param_dtype, **_QWEN2_FIXED,
    )


def config_from_hf(raw: dict, *, param_dtype: str = "float32") -> tuple[str, DecoderConfig]:
    """(family, DecoderConfig) from a parsed config.json.

    Raises:
      ValueError: unknown ``model_type`` (named), a missing key, or an
        unsupported variant.
    """
    family = raw.get("model_type")
    if family == "gpt2":
        return family, _gpt2(raw, param_dtype)
    if family == "qwen2":
        return family, _qwen2(raw, param_dtype)
    if family in alibi.FAMILIES:
        return family, alibi.config_from_hf(family, raw, param_dtype)
    if family in rope.FAMILIES:
        return family, rope.config_from_hf(family, raw, param_dtype)
    raise ValueError(f"config.json model_type={family!r} is not supported (expected one of {FAMILIES})")


def _mismatches(cfg: DecoderConfig, fixed: dict) -> list[str]:
    return [f"{k}={getattr(cfg, k)!r} (needs {v!r})" for k, v in fixed.items() if getattr(cfg, k) != v]


def family_of(cfg: DecoderConfig) -> str:
    """The family (one of FAMILIES) whose architecture ``cfg`` matches exactly: the first
    of gpt2, qwen2, llama, mistral, qwen3 (ALiBi configs: bloom / mpt).

    Raises:
      ValueError: listing the fields that keep ``cfg`` from each family.
    """
    if cfg.vocab_size is None:
        raise ValueError("cfg.vocab_size must be set to export a Hugging Face checkpoint")
    if cfg.position == "alibi":  # only BLOOM and MPT use ALiBi
        return alibi.family_of(cfg)
    if cfg.embed_norm:  # only BLOOM normalizes the input embeddings
        raise ValueError("cfg.embed_norm=True matches no family but BLOOM (which has position='alibi')")
    gpt2 = _mismatches(cfg, _GPT2_FIXED)
    if cfg.resolved_kv_heads != cfg.heads or cfg.resolved_head_dim * cfg.heads != cfg.width:
        gpt2.append("kv_heads/head_dim (GPT-2 has plain multi-head attention with head_dim = width / heads)")
    if not gpt2:
        return "gpt2"
    qwen2 = _mismatches(cfg, _QWEN2_FIXED)
    if not qwen2:
        return "qwen2"
    family, others = rope.family_of(cfg)  # Llama, Mistral, Qwen3
    if family is not None:
        return family
    others = "".join(f", {f} ({', '.join(m)})" for f, m in others.items())
    raise ValueError(f"cfg matches no family: gpt2 ({', '.join(gpt2)}), qwen2 ({', '.join(qwen2)}){others}")


def config_to_hf(cfg: DecoderConfig, *, dtype: str) -> tuple[str, dict]:
    """(family, config.json dict) describing ``cfg`` for transformers' GPT2 / Qwen2 classes."""
    family = family_of(cfg)
    if family in alibi.FAMILIES:
        raw = alibi.config_to_hf(cfg, family)
    elif family in rope.FAMILIES:
        raw = rope.config_to_hf(family, cfg)
    elif family == "gpt2":
        raw = dict(
            architectures=["GPT2LMHeadModel"], model_type="gpt2", n_layer=cfg.depth, n_embd=cfg.width,
            n_head=cfg.heads, n_inner=cfg.mlp_width, n_positions=cfg.max_positions,
            layer_norm_epsilon=cfg.norm_eps, vocab_size=cfg.vocab_size, activation_function="gelu_new",
            initializer_range=cfg.init_std, tie_word_embeddings=cfg.tie_embeddings,
            scale_attn_weights=True, scale_attn_by_inverse_layer_idx=False, reorder_and_upcast_attn=False,
        )
    else:
        raw = dict(
            architectures=["Qwen2ForCausalLM"], model_type="qwen2", num_hidden_layers=cfg.depth,
            hidden_size=cfg.width, num_attention_heads=cfg.heads, num_key_value_heads=cfg.resolved_kv_heads,
            head_dim=cfg.resolved_head_dim, intermediate_size=cfg.resolved_mlp_width,
            rms_norm_eps=cfg.norm_eps, rope_theta=cfg.rope_theta,
            rope_parameters={"rope_type": "default", "rope_theta": cfg.rope_theta},
            max_position_embeddings=cfg.max_positions, vocab_size=cfg.vocab_size,
            tie_word_embeddings=cfg.tie_embeddings, hidden_act="silu", use_sliding_window=False,
            initializer_range=cfg.init_std,
        )
    raw.update(torch_dtype=dtype, dtype=dtype)
    return family, raw

