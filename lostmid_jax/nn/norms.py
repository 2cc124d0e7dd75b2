"""Per-token normalization layers: LayerNorm, RMSNorm, identity.

They act on the last axis D only, so their Jacobian is block-diagonal over
positions: they rescale but do not move information between tokens.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import nnx

from .config import DecoderConfig


class LayerNorm(nnx.Module):
    """y = (x - mean(x)) / sqrt(var(x) + eps) * scale + bias over the last axis D.

    Variance is computed as mean((x - mean)^2) (two-pass, as in PyTorch);
    statistics in >= float32.
    """

    def __init__(self, width: int, *, eps: float, use_bias: bool, param_dtype):
        self.eps = eps
        self.scale = nnx.Param(jnp.ones((width,), param_dtype))
        self.bias = nnx.Param(jnp.zeros((width,), param_dtype)) if use_bias else None

    def __call__(self, x: jax.Array) -> jax.Array:
        h = x.astype(_stat_dtype(x))
        mean = jnp.mean(h, axis=-1, keepdims=True)
        centered = h - mean
        var = jnp.mean(centered * centered, axis=-1, keepdims=True)
        y = (centered * jax.lax.rsqrt(var + self.eps)).astype(x.dtype)
        y = y * self.scale[...].astype(x.dtype)
        if self.bias is not None:
            y = y + self.bias[...].astype(x.dtype)
        return y


class RMSNorm(nnx.Module):
    """y = x / sqrt(mean(x^2) + eps) * scale over the last axis D (Qwen2, Llama)."""

    def __init__(self, width: int, *, eps: float, param_dtype):
        self.eps = eps
        self.scale = nnx.Param(jnp.ones((width,), param_dtype))

    def __call__(self, x: jax.Array) -> jax.Array:
        h = x.astype(_stat_dtype(x))
        ms = jnp.mean(h * h, axis=-1, keepdims=True)
        return (h * jax.lax.rsqrt(ms + self.eps)).astype(x.dtype) * self.scale[...].astype(x.dtype)


class Identity(nnx.Module):
    """No normalization (norm="none")."""

    def __call__(self, x: jax.Array) -> jax.Array:
        return x


def _stat_dtype(x: jax.Array):
    """Statistics in >= float32, as Hugging Face does for half-precision inputs."""
    return jnp.promote_types(x.dtype, jnp.float32)


def make_norm(cfg: DecoderConfig) -> nnx.Module:
    """The norm layer selected by ``cfg.norm`` for width D."""
    if cfg.norm == "layernorm":
        return LayerNorm(cfg.width, eps=cfg.norm_eps, use_bias=cfg.norm_bias,
                         param_dtype=cfg.param_dtype)
    if cfg.norm == "rmsnorm":
        return RMSNorm(cfg.width, eps=cfg.norm_eps, param_dtype=cfg.param_dtype)
    return Identity()
