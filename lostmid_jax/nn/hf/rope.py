"""The RoPE keys of a Llama-style config.json (Llama, Mistral, Qwen2, Qwen3) <-> rope_theta and RopeScaling.

Read: rope_parameters (transformers >= 5) or rope_scaling + rope_theta (older
files; rope_scaling wins when both are there, as in transformers), with
rope_type (or the older key "type"):

    default   -> no RopeScaling
    linear    factor
    dynamic   factor; P = max_position_embeddings (what transformers' dynamic NTK uses)
    llama3    factor, low_freq_factor, high_freq_factor, original_max_position_embeddings
    yarn      factor, original_max_position_embeddings, and optionally attention_factor,
              beta_fast, beta_slow, mscale, mscale_all_dim, truncate

A missing original_max_position_embeddings takes the top-level key of that
name, else max_position_embeddings (transformers' standardize_rope_params).
Refused (ValueError naming the key): any other rope_type (longrope, ...),
partial_rotary_factor != 1, per-layer-type rope_parameters.

Written: rope_theta and rope_parameters {rope_type, rope_theta, and the keys
above}; a "dynamic" scaling whose P differs from max_positions cannot be
written (transformers would use max_position_embeddings): :func:`mismatches`.
"""

from __future__ import annotations

from ...untrusted import typed
from ..config import DecoderConfig
from ..rope_scaling import RopeScaling

ROPE_TYPES = ("default", "linear", "dynamic", "llama3", "yarn")
# The top-level config.json keys :func:`rope_from_hf` reads.
ROPE_KEYS = frozenset({"rope_theta", "rope_parameters", "rope_scaling", "partial_rotary_factor",
                       "original_max_position_embeddings"})
_YARN_KEYS = ("attention_factor", "beta_fast", "beta_slow", "mscale", "mscale_all_dim", "truncate")


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
    where = f"config.json {field}"
    for key in ("rope_theta", "factor", "low_freq_factor", "high_freq_factor", *_YARN_KEYS[:-1]):
        typed(params, key, "a number", where, nullable=key != "rope_theta")
    typed(params, "original_max_position_embeddings", "an integer", where, nullable=True)
    typed(params, "truncate", "true or false", where, nullable=True)
    theta = float(params.get("rope_theta", raw.get("rope_theta", 10000.0)))
    if kind == "default":
        return theta, None
    if params.get("factor") is None:
        raise ValueError(f"config.json {field} (rope_type={kind!r}) is missing the key 'factor'")
    if kind == "linear":
        return theta, RopeScaling(kind="linear", factor=params["factor"])
    if kind == "dynamic":
        return theta, RopeScaling(kind="dynamic", factor=params["factor"],
                                  original_max_positions=raw.get("max_position_embeddings"))
    original = params.get("original_max_position_embeddings",
                          raw.get("original_max_position_embeddings", raw.get("max_position_embeddings")))
    if kind == "yarn":
        return theta, RopeScaling(kind="yarn", factor=params["factor"], original_max_positions=original,
                                  **{k: params[k] for k in _YARN_KEYS if params.get(k) is not None})
    for key in ("low_freq_factor", "high_freq_factor"):
        if key not in params:
            raise ValueError(f"config.json {field} (rope_type='llama3') is missing the key {key!r}")
    return theta, RopeScaling(kind="llama3", factor=params["factor"], low_freq_factor=params["low_freq_factor"],
                              high_freq_factor=params["high_freq_factor"], original_max_positions=original)


def rope_parameters(cfg: DecoderConfig) -> dict:
    """The rope_parameters dict of config.json for ``cfg`` (theta and its RopeScaling)."""
    out = {"rope_type": "default", "rope_theta": cfg.rope_theta}
    scaling = cfg.rope_scaling
    if scaling is None:
        return out
    out.update(rope_type=scaling.kind, factor=scaling.factor)
    if scaling.kind in ("llama3", "yarn"):
        out["original_max_position_embeddings"] = scaling.original_max_positions
    if scaling.kind == "llama3":
        out.update(low_freq_factor=scaling.low_freq_factor, high_freq_factor=scaling.high_freq_factor)
    if scaling.kind == "yarn":
        out.update({k: getattr(scaling, k) for k in _YARN_KEYS if getattr(scaling, k) is not None})
    return out


def mismatches(cfg: DecoderConfig) -> list[str]:
    """What keeps ``cfg``'s RoPE from being written as config.json keys (empty: it can be)."""
    scaling = cfg.rope_scaling
    if scaling is not None and scaling.kind == "dynamic" and scaling.original_max_positions != cfg.max_positions:
        return [f"rope_scaling 'dynamic' with original_max_positions={scaling.original_max_positions} != "
                f"max_positions={cfg.max_positions} (transformers takes P = max_position_embeddings)"]
    return []
