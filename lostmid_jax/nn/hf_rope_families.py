"""Hugging Face config.json <-> DecoderConfig for the RoPE families Llama, Mistral and Qwen3.

All three are pre-norm RMSNorm decoders with RoPE, grouped-query attention and
a SwiGLU MLP, stored under Qwen2's tensor names (nn/hf_layout.py).

Keys read (every family): num_hidden_layers (H), hidden_size (D),
num_attention_heads, num_key_value_heads, head_dim, intermediate_size,
rms_norm_eps, max_position_embeddings, vocab_size, tie_word_embeddings,
hidden_act ("silu"), initializer_range, and the RoPE keys: rope_parameters
(transformers >= 5) or rope_scaling + rope_theta (older files; rope_scaling
wins when both are there, as in transformers), with rope_type "default",
"linear" (factor) or "llama3" (factor, low_freq_factor, high_freq_factor,
original_max_position_embeddings, default max_position_embeddings).
A missing key takes transformers' default for the family.

    Llama    attention_bias (q, k, v and o biases), mlp_bias
    Mistral  sliding_window (w: mask "sliding_window" with window w, query i
             sees i - w < j <= i; null: causal; missing: 4096, transformers'
             default); head_dim may differ from D / N (Mistral-Nemo)
    Qwen3    q/k RMSNorm per head (qk_norm), head_dim (default 128, independent
             of D), attention_bias

Refused (ValueError naming the key): hidden_act other than "silu"; rope_type
other than "default" / "linear" / "llama3" (dynamic, yarn, longrope, ...);
partial_rotary_factor != 1; per-layer-type rope_parameters; Mistral
layer_types (alternating sliding / full layers: Ministral); Qwen3
use_sliding_window=true or layer_types other than all "full_attention"
(sliding layers above max_window_layers).

Export (family_of): a config matching several families is written as the
first of Llama, Mistral, Qwen3 (a Mistral without a window is a Llama).
"""

from __future__ import annotations

from .config import DecoderConfig
from .rope_scaling import RopeScaling

FAMILIES = ("llama", "mistral", "qwen3")
ARCHITECTURES = {"llama": "LlamaForCausalLM", "mistral": "MistralForCausalLM", "qwen3": "Qwen3ForCausalLM"}
ROPE_TYPES = ("default", "linear", "llama3")

# transformers' defaults for keys a config.json may omit.
_DEFAULTS = {
    "llama": dict(num_key_value_heads=None, head_dim=None, rms_norm_eps=1e-6, max_position_embeddings=2048,
                  tie_word_embeddings=False, attention_bias=False, mlp_bias=False),
    "mistral": dict(num_key_value_heads=8, head_dim=None, rms_norm_eps=1e-6, max_position_embeddings=131072,
                    tie_word_embeddings=False, sliding_window=4096),
    "qwen3": dict(num_key_value_heads=32, head_dim=128, rms_norm_eps=1e-6, max_position_embeddings=32768,
                  tie_word_embeddings=False, attention_bias=False),
}
# Fields every exported config must have.
_FIXED = dict(attention="softmax", position="rope", norm="rmsnorm", pre_norm=True, final_norm=True,
              mlp="swiglu", residual=True, attn_mix=None, sinks=0)


def _get(raw: dict, family: str, key: str):
    return raw.get(key, _DEFAULTS[family].get(key))


def _require(raw: dict, key: str, family: str):
    if key not in raw:
        raise ValueError(f"config.json ({family}) is missing the key {key!r}")
    return raw[key]


def rope_from_hf(raw: dict) -> tuple[float, RopeScaling | None]:
    """(rope_theta, RopeScaling or None) from a config.json's RoPE keys (see the module docstring)."""
    field = "rope_scaling" if raw.get("rope_scaling") else "rope_parameters"
    params = raw.get(field) or {}
    if not isinstance(params, dict):
        raise ValueError(f"config.json {field} must be a JSON object, got {params!r}")
    nested = [k for k, v in params.items() if isinstance(v, dict)]
    if nested:
        raise ValueError(f"config.json {field} has per-layer-type entries {nested}: not supported")
    partial = params.get("partial_rotary_factor", raw.get("partial_rotary_factor", 1.0))
    if partial != 1:
        raise ValueError(f"config.json partial_rotary_factor={partial!r} is not supported (only 1)")
    kind = params.get("rope_type", params.get("type", "default"))
    if kind not in ROPE_TYPES:
        raise ValueError(f"config.json {field}.rope_type={kind!r} is not supported (expected one of {ROPE_TYPES})")
    theta = float(params.get("rope_theta", raw.get("rope_theta", 10000.0)))
    if kind == "default":
        return theta, None
    if "factor" not in params:
        raise ValueError(f"config.json {field} (rope_type={kind!r}) is missing the key 'factor'")
    if kind == "linear":
        return theta, RopeScaling(kind="linear", factor=params["factor"])
    for key in ("low_freq_factor", "high_freq_factor"):
        if key not in params:
            raise ValueError(f"config.json {field} (rope_type='llama3') is missing the key {key!r}")
    original = params.get("original_max_position_embeddings",
                          raw.get("original_max_position_embeddings", raw.get("max_position_embeddings")))
    return theta, RopeScaling(kind="llama3", factor=params["factor"], low_freq_factor=params["low_freq_factor"],
                              high_freq_factor=params["high_freq_factor"], original_max_positions=original)


def _head_dim(raw: dict, family: str) -> int | None:
    """head_dim, or None when it is hidden_size / num_attention_heads."""
    head_dim = _get(raw, family, "head_dim")
    width, heads = raw.get("hidden_size"), raw.get("num_attention_heads")
    if head_dim is not None and width is not None and heads and head_dim * heads == width:
        return None
    return head_dim


def _common(raw: dict, family: str, param_dtype: str, **fields) -> DecoderConfig:
    """The DecoderConfig of a ``family`` config.json; ``fields`` are the family's own."""
    if raw.get("hidden_act", "silu") != "silu":
        raise ValueError(f"config.json hidden_act={raw['hidden_act']!r} is not supported (expected 'silu')")
    theta, scaling = rope_from_hf(raw)
    return DecoderConfig(
        depth=_require(raw, "num_hidden_layers", family), width=_require(raw, "hidden_size", family),
        heads=_require(raw, "num_attention_heads", family),
        kv_heads=_get(raw, family, "num_key_value_heads"), head_dim=_head_dim(raw, family),
        mlp_width=_require(raw, "intermediate_size", family),
        norm_eps=float(_get(raw, family, "rms_norm_eps")), rope_theta=theta, rope_scaling=scaling,
        max_positions=int(_get(raw, family, "max_position_embeddings")),
        vocab_size=_require(raw, "vocab_size", family),
        tie_embeddings=bool(_get(raw, family, "tie_word_embeddings")),
        init="normal", init_std=float(raw.get("initializer_range", 0.02)),
        param_dtype=param_dtype, **_FIXED, **fields,
    )


def _llama(raw: dict, param_dtype: str) -> DecoderConfig:
    bias = bool(_get(raw, "llama", "attention_bias"))
    return _common(raw, "llama", param_dtype, mask="causal", qkv_bias=bias, out_bias=bias,
                   mlp_bias=bool(_get(raw, "llama", "mlp_bias")), qk_norm=False)


def _mistral(raw: dict, param_dtype: str) -> DecoderConfig:
    if raw.get("layer_types") is not None:
        raise ValueError("config.json layer_types (alternating sliding / full attention layers) is not supported "
                         "for mistral")
    window = _get(raw, "mistral", "sliding_window")
    mask = dict(mask="causal") if window is None else dict(mask="sliding_window", window=window)
    return _common(raw, "mistral", param_dtype, qkv_bias=False, out_bias=False, mlp_bias=False, qk_norm=False,
                   **mask)


def _qwen3(raw: dict, param_dtype: str) -> DecoderConfig:
    if raw.get("use_sliding_window", False):
        raise ValueError("config.json use_sliding_window=true is not supported for qwen3 "
                         "(sliding layers above max_window_layers)")
    layer_types = raw.get("layer_types")
    if layer_types is not None and any(t != "full_attention" for t in layer_types):
        raise ValueError(f"config.json layer_types={layer_types!r} is not supported for qwen3 "
                         f"(only 'full_attention' layers)")
    bias = bool(_get(raw, "qwen3", "attention_bias"))
    return _common(raw, "qwen3", param_dtype, mask="causal", qkv_bias=bias, out_bias=bias, mlp_bias=False,
                   qk_norm=True)


_READERS = {"llama": _llama, "mistral": _mistral, "qwen3": _qwen3}


def config_from_hf(family: str, raw: dict, param_dtype: str) -> DecoderConfig:
    """The DecoderConfig of a parsed config.json whose model_type is ``family`` (one of FAMILIES)."""
    return _READERS[family](raw, param_dtype)


def mismatches(cfg: DecoderConfig, family: str) -> list[str]:
    """The fields that keep ``cfg`` from being exported as ``family`` (empty: it can be)."""
    out = [f"{k}={getattr(cfg, k)!r} (needs {v!r})" for k, v in _FIXED.items() if getattr(cfg, k) != v]
    if getattr(cfg, "embed_norm", False):
        out.append("embed_norm=True (needs False)")
    if cfg.width % cfg.heads:
        out.append(f"width={cfg.width} not divisible by heads={cfg.heads} (transformers requires it)")
    if family == "mistral":
        if cfg.mask not in ("causal", "sliding_window"):
            out.append(f"mask={cfg.mask!r} (needs 'causal' or 'sliding_window')")
        out += [f"{k}=True (needs False)" for k in ("qkv_bias", "out_bias", "mlp_bias", "qk_norm") if getattr(cfg, k)]
        return out
    if cfg.mask != "causal":
        out.append(f"mask={cfg.mask!r} (needs 'causal')")
    if cfg.qkv_bias != cfg.out_bias:
        out.append(f"qkv_bias={cfg.qkv_bias} and out_bias={cfg.out_bias} (attention_bias sets both)")
    if cfg.qk_norm != (family == "qwen3"):
        out.append(f"qk_norm={cfg.qk_norm} (needs {family == 'qwen3'})")
    if family == "qwen3" and cfg.mlp_bias:
        out.append("mlp_bias=True (needs False)")
    return out


def family_of(cfg: DecoderConfig) -> tuple[str | None, dict[str, list[str]]]:
    """(the first of FAMILIES that ``cfg`` matches or None, {family: mismatches})."""
    problems = {family: mismatches(cfg, family) for family in FAMILIES}
    return next((f for f in FAMILIES if not problems[f]), None), problems


def _rope_parameters(cfg: DecoderConfig) -> dict:
    out = {"rope_type": "default", "rope_theta": cfg.rope_theta}
    scaling = cfg.rope_scaling
    if scaling is not None:
        out.update(rope_type=scaling.kind, factor=scaling.factor)
        if scaling.kind == "llama3":
            out.update(low_freq_factor=scaling.low_freq_factor, high_freq_factor=scaling.high_freq_factor,
                       original_max_position_embeddings=scaling.original_max_positions)
    return out


def config_to_hf(family: str, cfg: DecoderConfig) -> dict:
    """The config.json dict of ``cfg`` (which must match ``family``) for transformers' class."""
    raw = dict(
        architectures=[ARCHITECTURES[family]], model_type=family, num_hidden_layers=cfg.depth,
        hidden_size=cfg.width, num_attention_heads=cfg.heads, num_key_value_heads=cfg.resolved_kv_heads,
        head_dim=cfg.resolved_head_dim, intermediate_size=cfg.resolved_mlp_width, rms_norm_eps=cfg.norm_eps,
        rope_theta=cfg.rope_theta, rope_parameters=_rope_parameters(cfg),
        max_position_embeddings=cfg.max_positions, vocab_size=cfg.vocab_size,
        tie_word_embeddings=cfg.tie_embeddings, hidden_act="silu", initializer_range=cfg.init_std,
    )
    if family == "llama":
        raw.update(attention_bias=cfg.qkv_bias, mlp_bias=cfg.mlp_bias)
    elif family == "mistral":
        raw.update(sliding_window=cfg.window if cfg.mask == "sliding_window" else None)
    else:
        raw.update(attention_bias=cfg.qkv_bias, use_sliding_window=False, sliding_window=None,
                   max_window_layers=cfg.depth, layer_types=["full_attention"] * cfg.depth)
    return raw
