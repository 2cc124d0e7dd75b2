"""Weight initializers for the two published schemes.

GPT-2 (Radford et al. 2019; nanoGPT): every weight N(0, std^2), and the
projections that write into the residual stream (attention output, MLP down)
N(0, std^2 / (2 H)). Qwen2 (Hugging Face default): every weight N(0, std^2).
Biases start at 0, norm scales at 1.
"""

from __future__ import annotations

import math

import jax
from flax import nnx

from .config import DecoderConfig


def weight_init(cfg: DecoderConfig, *, residual_out: bool = False):
    """Normal initializer for a weight; ``residual_out`` marks output projections."""
    std = cfg.init_std
    if residual_out and cfg.init == "gpt2" and cfg.depth > 0:
        std = std / math.sqrt(2 * cfg.depth)
    return nnx.initializers.normal(stddev=std)


class TokenLinear(nnx.Linear):
    """nnx.Linear applied to the tokens as one [N, d_in] matrix: [..., d_in] -> [..., d_out].

    Same parameters and values as nnx.Linear. Flattening the leading axes
    first makes the weight gradient one [d_in, N] x [N, d_out] GEMM; with
    [B, L, d_in] inputs XLA's CPU backend instead fuses a slow strided
    transpose into the backward pass (3x slower MLP training step).
    """

    def __call__(self, x: jax.Array) -> jax.Array:
        y = super().__call__(x.reshape(-1, x.shape[-1]))
        return y.reshape(*x.shape[:-1], y.shape[-1])


def linear(cfg: DecoderConfig, d_in: int, d_out: int, *, bias: bool, rngs: nnx.Rngs,
           residual_out: bool = False) -> nnx.Linear:
    """TokenLinear [d_in -> d_out] with the config's init, param and compute dtype."""
    return TokenLinear(
        d_in, d_out, use_bias=bias,
        kernel_init=weight_init(cfg, residual_out=residual_out),
        bias_init=nnx.initializers.zeros_init(),
        param_dtype=cfg.param_dtype, dtype=cfg.compute_dtype,
        precision="highest", rngs=rngs,
    )
