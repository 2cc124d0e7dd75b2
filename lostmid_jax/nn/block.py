"""One residual decoder block: attention then MLP, pre- or post-norm.

Pre-norm (GPT-2, Qwen2), with a = attn_mix (None means a plain residual add):

    x <- (1 - a) x + a Attn(norm1(x))      [or x + Attn(norm1(x))]
    x <- x + MLP(norm2(x))

Post-norm: x <- norm1(x + Attn(x)); x <- norm2(x + MLP(x)).
With residual=False the "x +" terms are dropped.
Shapes: [B, L, D] -> [B, L, D].
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import nnx

from .attention import Attention
from .capture import Capture, Intermediates
from .config import DecoderConfig
from .execution import DEFAULT_EXECUTION, Execution
from .mlp import MLP
from .norms import make_norm


class Block(nnx.Module):
    """Attention + MLP residual block."""

    def __init__(self, cfg: DecoderConfig, *, rngs: nnx.Rngs):
        self.cfg = cfg
        self.norm1 = make_norm(cfg)
        self.attn = Attention(cfg, rngs=rngs)
        if cfg.mlp == "none":
            self.norm2 = self.mlp = None
        else:
            self.norm2 = make_norm(cfg)
            self.mlp = MLP(cfg, rngs=rngs)

    def __call__(self, x: jax.Array, *, mix: jax.Array | None, positions: jax.Array,
                 segment_ids: jax.Array | None = None, freeze_probs: bool = False,
                 capture: Capture | None = None,
                 execution: Execution = DEFAULT_EXECUTION) -> tuple[jax.Array, Intermediates]:
        """Apply the block.

        Args:
          x: [B, L, D] residual stream.
          mix: scalar attention mixing weight a, or None for x + Attn(x).
          positions: [B, L] positions (RoPE / ALiBi).
          segment_ids: optional [B, L] segment ids.
          freeze_probs: stop gradients through the attention probabilities.
          capture: what to record (None: nothing).
          execution: how attention runs.

        Returns:
          (x_out [B, L, D], Intermediates of this layer): with ``capture.norms``
          resid_norm ||x_i|| at the block input, attn_out_norm
          ||Attn(norm1(x))_i|| (the branch before mixing), mlp_out_norm
          ||MLP(norm2(x))_i|| (if there is an MLP), all [B, L]; with
          ``capture.probs`` attn_probs [B, N, L, L].
        """
        cfg = self.cfg
        norms = capture is not None and capture.norms
        need_probs = capture is not None and capture.probs
        inter = {}
        if norms:
            inter["resid_norm"] = _token_norm(x)
        attn_in = self.norm1(x) if cfg.pre_norm else x
        att, probs = self.attn(attn_in, positions=positions, segment_ids=segment_ids,
                               freeze_probs=freeze_probs, need_probs=need_probs, execution=execution)
        if norms:
            inter["attn_out_norm"] = _token_norm(att)
        if need_probs:
            inter["attn_probs"] = probs
        x = _residual(x, att, mix, cfg.residual)
        if not cfg.pre_norm:
            x = self.norm1(x)
        if self.mlp is not None:
            m = self.mlp(self.norm2(x) if cfg.pre_norm else x)
            if norms:
                inter["mlp_out_norm"] = _token_norm(m)
            x = _residual(x, m, None, cfg.residual)
            if not cfg.pre_norm:
                x = self.norm2(x)
        return x, Intermediates(**inter)


def _residual(x, branch, mix, residual: bool):
    if not residual:
        return branch
    if mix is None:
        return x + branch
    mix = mix.astype(x.dtype)
    return (1 - mix) * x + mix * branch


def _token_norm(x: jax.Array) -> jax.Array:
    """Euclidean norm over D in >= float32: [..., L, D] -> [..., L]."""
    x = x.astype(jnp.promote_types(x.dtype, jnp.float32))
    return jnp.sqrt(jnp.sum(x * x, axis=-1))
