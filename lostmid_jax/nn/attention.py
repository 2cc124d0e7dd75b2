"""Multi-head / grouped-query self-attention with softmax or uniform weights.

Shapes: B batch, L positions, D width, N query heads, G key/value heads
(N = G R), Dh head dim.

    o_i = W_o concat_h( sum_j A^h_ij v^h_j ),   v^h_j = W_v^h x_j
    q^h_i = RoPE(n_q(W_q^h x_i)),  k^h_j = RoPE(n_k(W_k^h x_j))   (n_q, n_k: RMSNorm over Dh
                                   with ``qk_norm``, else identity; RoPE with position "rope")

softmax:       A^h = softmax_j(q_i . k_j / sqrt(Dh) + bias_ij)   over allowed j
               (in query blocks with a hand-written backward, attention_core,
               or the fused C++ kernel of kernels/fused_cpu with
               Execution(attn_impl="fused_cpu"); the dense L x L route when the
               probabilities are requested)
uniform:       A_ij = 1 / #{allowed j}  (Step-0 limit; q/k exist but are unused)
linear-value:  the same uniform A with no q/k parameters at all.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import nnx

from .attention_core import CoreSpec, auto_block, blocked_attention
from .config import DecoderConfig
from .execution import DEFAULT_EXECUTION, Execution
from .init import linear
from ..masks.spec import MaskSpec
from .masks import allowed_mask
from .norms import RMSNorm
from .positions import alibi_bias, rope


class Attention(nnx.Module):
    """Self-attention layer, [B, L, D] -> [B, L, D]."""

    def __init__(self, cfg: DecoderConfig, *, rngs: nnx.Rngs):
        self.cfg = cfg
        self.mask = MaskSpec.from_config(cfg)
        n, g, k, d = cfg.heads, cfg.resolved_kv_heads, cfg.resolved_head_dim, cfg.width
        if cfg.attention == "linear-value":
            self.q = self.k = None
        else:
            self.q = linear(cfg, d, n * k, bias=cfg.qkv_bias, rngs=rngs)
            self.k = linear(cfg, d, g * k, bias=cfg.qkv_bias, rngs=rngs)
        self.v = linear(cfg, d, g * k, bias=cfg.qkv_bias, rngs=rngs)
        self.o = linear(cfg, n * k, d, bias=cfg.out_bias, rngs=rngs, residual_out=True)
        if cfg.qk_norm:  # per-head RMSNorm over Dh on queries and keys (Qwen3)
            self.q_norm = RMSNorm(k, eps=cfg.norm_eps, param_dtype=cfg.param_dtype)
            self.k_norm = RMSNorm(k, eps=cfg.norm_eps, param_dtype=cfg.param_dtype)
        else:
            self.q_norm = self.k_norm = None

    def __call__(self, x: jax.Array, *, positions: jax.Array, segment_ids: jax.Array | None = None,
                 freeze_probs: bool = False, need_probs: bool = True,
                 execution: Execution = DEFAULT_EXECUTION) -> tuple[jax.Array, jax.Array | None]:
        """Attend.

        Args:
          x: [B, L, D] (already normalized) input.
          positions: [B, L] positions for RoPE / ALiBi.
          segment_ids: optional [B, L] segment ids (see masks.allowed_mask).
          freeze_probs: stop gradients through the attention probabilities
            (value pathway only).
          need_probs: return the [B, N, L, L] probabilities; without them
            softmax attention takes the route of ``execution.attn_impl``.
          execution: attention route, query block and kept probabilities.

        Returns:
          (out [B, L, D], probs [B, N, L, L] or None).
        """
        cfg = self.cfg
        b, length, _ = x.shape
        n, g, k = cfg.heads, cfg.resolved_kv_heads, cfg.resolved_head_dim
        r = n // g
        if cfg.attention == "softmax" and not need_probs:
            q, kk = self._queries_keys(x, positions)
            v = self.v(x).reshape(b, length, g, k)
            if execution.attn_impl == "fused_cpu":
                if segment_ids is not None:
                    raise ValueError("attn_impl='fused_cpu' takes no segment_ids (use attn_impl='blocked')")
                from ..kernels.fused_cpu import FusedSpec, fused_attention  # compiled on first use

                out = fused_attention(q, kk, v, FusedSpec(self.mask, freeze_probs))
            else:
                spec = CoreSpec(self.mask, cfg.position == "alibi", execution.attn_block or auto_block(length),
                                freeze_probs, execution.keep_probs, alibi_rule=cfg.alibi_rule)
                out = blocked_attention(q, kk, v, positions, segment_ids, spec)
            return self.o(out.reshape(b, length, n * k)), None
        allowed = allowed_mask(self.mask, length, segment_ids)[:, None]  # [B|1, 1, L, L]
        v = self.v(x).reshape(b, length, g, k)  # [B, L, G, Dh]
        if cfg.attention == "softmax":
            probs = self._softmax_probs(x, positions, allowed)  # [B, N, L, L]
            if freeze_probs:
                probs = jax.lax.stop_gradient(probs)
            grouped = probs.reshape(b, g, r, length, length)
            out = jnp.einsum("bgrlm,bmgk->blgrk", grouped, v, precision="highest")
        else:
            counts = jnp.sum(allowed, axis=-1, keepdims=True)
            probs = (allowed / counts).astype(x.dtype)  # [B|1, 1, L, L]
            probs = jnp.broadcast_to(probs, (b, 1, length, length))
            if freeze_probs:
                probs = jax.lax.stop_gradient(probs)
            out = jnp.einsum("blm,bmgk->blgk", probs[:, 0], v, precision="highest")
            out = jnp.broadcast_to(out[:, :, :, None], (b, length, g, r, k))
            probs = jnp.broadcast_to(probs, (b, n, length, length))
        return self.o(out.reshape(b, length, n * k)), probs

    def _queries_keys(self, x, positions):
        """(q [B, L, G, R, Dh], k [B, L, G, Dh]) with the q/k norms and RoPE applied."""
        cfg = self.cfg
        b, length, _ = x.shape
        n, g, k = cfg.heads, cfg.resolved_kv_heads, cfg.resolved_head_dim
        q = self.q(x).reshape(b, length, n, k)
        kk = self.k(x).reshape(b, length, g, k)
        if self.q_norm is not None:
            q, kk = self.q_norm(q), self.k_norm(kk)
        if cfg.position == "rope":
            q = rope(q, positions, cfg.rope_theta, cfg.rope_scaling)
            kk = rope(kk, positions, cfg.rope_theta, cfg.rope_scaling)
        return q.reshape(b, length, g, n // g, k), kk

    def _softmax_probs(self, x, positions, allowed):
        cfg = self.cfg
        b, length, _ = x.shape
        n, k = cfg.heads, cfg.resolved_head_dim
        q, kk = self._queries_keys(x, positions)
        scores = jnp.einsum("blgrk,bmgk->bgrlm", q, kk, precision="highest")
        scores = scores.reshape(b, n, length, length) / jnp.sqrt(jnp.asarray(k, x.dtype))
        sdt = jnp.promote_types(x.dtype, jnp.float32)  # softmax in >= float32
        scores = scores.astype(sdt)
        if cfg.position == "alibi":
            scores = scores + alibi_bias(n, positions, sdt, rule=cfg.alibi_rule)
        scores = jnp.where(allowed, scores, -jnp.inf)
        return jax.nn.softmax(scores, axis=-1).astype(x.dtype)
