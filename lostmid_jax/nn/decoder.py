"""Decoder: a scanned stack of identical blocks on input embeddings.

    y = final_norm(Block_H(... Block_1(x + pos) ...))       x: [L, D] or [B, L, D]

The stack takes input embeddings directly, so Jacobians d y / d x are plain
jax.jacrev / jax.vjp calls (see functional.py). The blocks' parameters are
stored stacked along a leading layer axis [H, ...] (layer l initialized from
the l-th of H split keys) and applied with jax.lax.scan; with ``cfg.remat`` each scanned
block is wrapped in jax.checkpoint, so the backward pass keeps only the H
residual streams [H, B, L, D] and recomputes one block's [B, N, L, L]
attention at a time.

Token embedding and LM head (when ``cfg.vocab_size`` is set):
``model.embed(tokens)`` -> [.., L, D], ``model.logits(h)`` -> [.., L, V]
(tied: h @ E^T), ``model.lm(tokens)`` = logits(model(embed(tokens))).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from flax import nnx

from .block import Block
from .config import DecoderConfig
from .init import linear, weight_init
from .norms import Identity, make_norm


class Decoder(nnx.Module):
    """Decoder-only transformer stack described by a DecoderConfig.

    Args:
      cfg: the architecture.
      rngs: nnx.Rngs; the "params" stream initializes every weight.
    """

    def __init__(self, cfg: DecoderConfig, *, rngs: nnx.Rngs):
        self.cfg = cfg
        d, init = cfg.width, weight_init(cfg)
        if cfg.vocab_size is not None:  # token embedding E [V, D]
            self.wte = nnx.Param(init(rngs.params(), (cfg.vocab_size, d), cfg.param_dtype))
        else:
            self.wte = None
        if cfg.position == "learned":  # absolute position table [P, D]
            self.wpe = nnx.Param(init(rngs.params(), (cfg.max_positions, d), cfg.param_dtype))
        else:
            self.wpe = None
        self.blocks = _stacked_blocks(cfg, jax.random.split(rngs.params(), cfg.depth))
        self.final_norm = make_norm(cfg) if cfg.final_norm else Identity()
        if cfg.vocab_size is not None and not cfg.tie_embeddings:
            self.lm_head = linear(cfg, d, cfg.vocab_size, bias=False, rngs=rngs)
        else:
            self.lm_head = None

    # ------------------------------------------------------------------ stack
    def __call__(self, x: jax.Array, *, positions: jax.Array | None = None,
                 segment_ids: jax.Array | None = None,
                 freeze_attention_probs: bool = False) -> jax.Array:
        """Final hidden states.

        Args:
          x: [L, D] or [B, L, D] input embeddings.
          positions: optional [L] or [B, L] integer positions (default
            0..L-1), used by RoPE, ALiBi and learned absolute positions (which
            need positions < max_positions).
          segment_ids: optional [L] or [B, L] segment ids (required for
            mask "document").
          freeze_attention_probs: stop gradients through every attention
            probability matrix (the value pathway of the Jacobian).

        Returns:
          Same shape as x: hidden states after the final norm.

        Inside ``nnx.capture(model, nnx.Intermediate)`` the per-layer
        intermediates of :meth:`forward_with_intermediates` are sown too.
        """
        collect = hasattr(self, "__captures__")
        y, inter = self._forward(x, positions, segment_ids, freeze_attention_probs,
                                 collect=collect, collect_probs=collect)
        for name, value in inter.items():
            self.sow(nnx.Intermediate, name, value)
        return y

    def forward_with_intermediates(self, x: jax.Array, *, positions: jax.Array | None = None,
                                   segment_ids: jax.Array | None = None,
                                   freeze_attention_probs: bool = False,
                                   attention_probs: bool = True) -> tuple[jax.Array, dict]:
        """Final hidden states and per-layer intermediates (jit-safe, no hooks).

        Args:
          x, positions, segment_ids, freeze_attention_probs: as in __call__.
          attention_probs: also return the attention probabilities (H N L^2
            numbers per batch element: turn off for long contexts).

        Returns:
          (y, inter) with y as in __call__ and inter a dict of arrays with a
          leading layer axis H (then B if x was batched):
          "resid_norm" [H, (B,) L]: ||x_i|| of the residual stream entering
            each block;
          "attn_out_norm" [H, (B,) L]: ||Attn(norm1(x))_i||, the attention
            branch before residual mixing;
          "mlp_out_norm" [H, (B,) L]: ||MLP(norm2(x))_i|| (only with an MLP);
          "attn_probs" [H, (B,) N, L, L]: attention weights (if requested).
        """
        return self._forward(x, positions, segment_ids, freeze_attention_probs,
                             collect=True, collect_probs=attention_probs)

    def _forward(self, x, positions, segment_ids, freeze, *, collect, collect_probs):
        cfg = self.cfg
        if x.ndim not in (2, 3) or x.shape[-1] != cfg.width:
            raise ValueError(f"x must have shape [L, {cfg.width}] or [B, L, {cfg.width}], "
                             f"got {x.shape}")
        unbatched = x.ndim == 2
        h = (x[None] if unbatched else x).astype(cfg.compute_dtype)
        b, length, _ = h.shape
        if positions is None:
            if cfg.position == "learned" and length > cfg.max_positions:
                raise ValueError(f"sequence length {length} exceeds max_positions={cfg.max_positions}")
            positions = jnp.arange(length, dtype=jnp.int32)
        positions = jnp.asarray(positions)
        positions = positions[None] if positions.ndim == 1 else positions  # [1 | B, L]: RoPE angles once per row
        if positions.ndim != 2 or positions.shape[1] != length or positions.shape[0] not in (1, b):
            raise ValueError(f"positions must have shape [{length}] or [{b}, {length}], got {positions.shape}")
        if segment_ids is not None:
            segment_ids = jnp.broadcast_to(jnp.asarray(segment_ids), (b, length))
        if self.wpe is not None:
            h = h + jnp.take(self.wpe[...], positions, axis=0).astype(h.dtype)

        h, inter = self._scan_blocks(h, positions, segment_ids, freeze, collect, collect_probs)
        h = self.final_norm(h)
        if unbatched:
            h = h[0]
            inter = {k: v[:, 0] for k, v in inter.items()}
        return h, inter

    def _scan_blocks(self, h, positions, segment_ids, freeze, collect, collect_probs):
        graphdef, params = nnx.split(self.blocks)
        mix = self.cfg.layer_mix()
        mixes = None if mix is None else jnp.asarray(mix, dtype=h.dtype)  # [H]
        return _scan(graphdef, params, h, mixes, positions, segment_ids, freeze=freeze,
                     collect=collect, collect_probs=collect_probs, remat=self.cfg.remat,
                     unroll=self.cfg.unroll_layers)

    # ------------------------------------------------------- tokens / LM head
    def embed(self, tokens: jax.Array) -> jax.Array:
        """Token embeddings: [..., L] int -> [..., L, D] (compute dtype)."""
        if self.wte is None:
            raise ValueError("embed needs cfg.vocab_size to be set")
        return jnp.take(self.wte[...], tokens, axis=0).astype(self.cfg.compute_dtype)

    def logits(self, h: jax.Array) -> jax.Array:
        """LM head: [..., L, D] -> [..., L, V] (tied: h @ E^T)."""
        if self.wte is None:
            raise ValueError("logits needs cfg.vocab_size to be set")
        if self.lm_head is not None:
            return self.lm_head(h)
        w = self.wte[...].astype(h.dtype)
        return jnp.einsum("...d,vd->...v", h, w, precision="highest")

    def lm(self, tokens: jax.Array, **kwargs) -> jax.Array:
        """Next-token logits: logits(self(embed(tokens), **kwargs)), [..., L] -> [..., L, V]."""
        return self.logits(self(self.embed(tokens), **kwargs))


@functools.partial(jax.jit,
                   static_argnames=("graphdef", "freeze", "collect", "collect_probs", "remat", "unroll"))
def _scan(graphdef, params, h, mixes, positions, segment_ids, *, freeze, collect, collect_probs, remat,
          unroll=False):
    """Scan the stacked blocks over the layer axis (jitted: eager calls compile once).

    Args:
      graphdef, params: nnx.split of the stacked blocks (params [H, ...]).
      h: [B, L, D] residual stream; mixes: [H] attention mixing weights or None.
      unroll: unroll the scan completely (cfg.unroll_layers).

    Returns:
      (h_out [B, L, D], per-layer intermediates with a leading axis H).
    """

    def body(carry, layer):
        layer_params, a = layer
        block = nnx.merge(graphdef, layer_params)
        return block(carry, mix=a, positions=positions, segment_ids=segment_ids,
                     freeze_probs=freeze, collect=collect, collect_probs=collect_probs)

    if remat:
        body = jax.checkpoint(body)
    depth = jax.tree.leaves(params)[0].shape[0]  # every block has a value projection
    return jax.lax.scan(body, h, (params, mixes), length=depth, unroll=bool(unroll) or 1)


def _stacked_blocks(cfg: DecoderConfig, keys: jax.Array) -> Block:
    """One Block whose parameters are stacked along a leading layer axis [H, ...].

    Layer l is Block(cfg, rngs=nnx.Rngs(params=keys[l])). Built in a loop and
    stacked (rather than nnx.vmap) so that eager initializers compile once per
    parameter shape, independent of the depth H.
    """
    graphdef, abstract = nnx.split(nnx.eval_shape(lambda: Block(cfg, rngs=nnx.Rngs(0))))
    leaves, treedef = jax.tree.flatten(abstract)
    layers = [jax.tree.leaves(nnx.state(Block(cfg, rngs=nnx.Rngs(params=key)))) for key in keys]
    stacked = []
    for i, leaf in enumerate(leaves):
        stacked.append(jnp.stack([layer[i] for layer in layers]) if layers
                       else jnp.zeros((0, *leaf.shape), leaf.dtype))  # depth 0: empty stacks
        for layer in layers:
            layer[i] = None  # free the per-layer copy: peak ~ one copy of the stack
    return nnx.merge(graphdef, jax.tree.unflatten(treedef, stacked))
