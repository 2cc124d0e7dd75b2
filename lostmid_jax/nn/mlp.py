"""Per-token MLPs: GELU (tanh: GPT-2, BLOOM; exact erf: MPT) and SwiGLU (Llama, Qwen2).

Shapes: [..., D] -> [..., D] with hidden width F = cfg.resolved_mlp_width.
"""

from __future__ import annotations

import jax
from flax import nnx

from .config import DecoderConfig
from .init import linear


class MLP(nnx.Module):
    """GELU MLP down(gelu(up(x))) (tanh approximation for "gelu", x Phi(x) with the
    erf for "gelu-exact") or SwiGLU MLP down(silu(gate(x)) * up(x))."""

    def __init__(self, cfg: DecoderConfig, *, rngs: nnx.Rngs):
        d, f = cfg.width, cfg.resolved_mlp_width
        self.kind = cfg.mlp
        self.up = linear(cfg, d, f, bias=cfg.mlp_bias, rngs=rngs)
        self.gate = linear(cfg, d, f, bias=cfg.mlp_bias, rngs=rngs) if cfg.mlp == "swiglu" else None
        self.down = linear(cfg, f, d, bias=cfg.mlp_bias, rngs=rngs, residual_out=True)

    def __call__(self, x: jax.Array) -> jax.Array:
        if self.kind == "swiglu":
            h = jax.nn.silu(self.gate(x)) * self.up(x)  # [..., F]
        else:
            h = jax.nn.gelu(self.up(x), approximate=self.kind == "gelu")  # [..., F]
        return self.down(h)
