"""Decoder: a scanned stack of identical blocks on input embeddings.

    y = final_norm(Block_H(... Block_1(embed_norm(x + pos)) ...))       x: [L, D] or [B, L, D]

(embed_norm only with ``cfg.embed_norm``, BLOOM; pos only with learned positions.)

The stack takes input embeddings directly, so Jacobians d y / d x are plain
jax.jacrev / jax.vjp calls (see functional.py). The blocks' parameters are
stored stacked along a leading layer axis [H, ...] (layer l initialized from
the l-th of H split keys) and applied with jax.lax.scan. How a call runs is an
nn.Execution passed at call time: with ``remat`` (the default) each scanned
block is wrapped in jax.checkpoint, so the backward pass keeps only the H
residual streams [H, B, L, D] and recomputes one block's [B, N, L, L]
attention at a time. Intermediates are asked for with an nn.Capture and come
back as an nn.Intermediates (forward_with_intermediates).

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
from .capture import Capture, Intermediates
from .config import DecoderConfig
from .execution import Execution, check_execution
from .init import linear, weight_init
from .norms import Identity, make_norm
from ..validation import check_bool


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
        self.embed_norm = make_norm(cfg) if cfg.embed_norm else None  # on the input embeddings
        self.blocks = _stacked_blocks(cfg, jax.random.split(rngs.params(), cfg.depth))
        self.final_norm = make_norm(cfg) if cfg.final_norm else Identity()
        if cfg.vocab_size is not None and not cfg.tie_embeddings:
            self.lm_head = linear(cfg, d, cfg.vocab_size, bias=False, rngs=rngs)
        else:
            self.lm_head = None

    # ------------------------------------------------------------------ stack
    def __call__(self, x: jax.Array, *, positions: jax.Array | None = None,
                 segment_ids: jax.Array | None = None, freeze_probs: bool = False,
                 execution: Execution | None = None) -> jax.Array:
        """Final hidden states.

        Args:
          x: [L, D] or [B, L, D] input embeddings.
          positions: optional [L] or [B, L] integer positions (default
            0..L-1), used by RoPE, ALiBi and learned absolute positions (which
            need positions < max_positions).
          segment_ids: optional [L] or [B, L] segment ids (required for
            mask "document").
          freeze_probs: stop gradients through every attention probability
            matrix (the value pathway of the Jacobian).
          execution: how the call runs (nn.Execution; None: ``Execution()``,
            i.e. remat, scanned layers, blocked attention).

        Returns:
          Same shape as x: hidden states after the final norm.
        """
        return self._forward(x, positions, segment_ids, freeze_probs, None, execution)[0]

    def forward_with_intermediates(self, x: jax.Array, *, positions: jax.Array | None = None,
                                   segment_ids: jax.Array | None = None, freeze_probs: bool = False,
                                   capture: Capture = Capture(),
                                   execution: Execution | None = None) -> tuple[jax.Array, Intermediates]:
        """Final hidden states and per-layer intermediates (jit-safe, no hooks).

        Args:
          x, positions, segment_ids, freeze_probs, execution: as in __call__.
          capture: what to record (nn.Capture; default the per-token norms
            without the attention probabilities).

        Returns:
          (y, inter) with y as in __call__ and inter an nn.Intermediates whose
          captured fields have a leading layer axis H (then B if x was
          batched): resid_norm, attn_out_norm, mlp_out_norm [H, (B,) L],
          attn_probs [H, (B,) N, L, L].
        """
        if not isinstance(capture, Capture):
            raise ValueError(f"capture must be an nn.Capture, got {type(capture).__name__}")
        return self._forward(x, positions, segment_ids, freeze_probs, capture, execution)

    def _forward(self, x, positions, segment_ids, freeze_probs, capture, execution):
        cfg = self.cfg
        execution = check_execution(execution, cfg)
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
        if self.embed_norm is not None:
            h = self.embed_norm(h)

        graphdef, params = nnx.split(self.blocks)
        mix = cfg.layer_mix()
        mixes = None if mix is None else jnp.asarray(mix, dtype=h.dtype)  # [H]
        h, inter = _scan(graphdef, params, h, mixes, positions, segment_ids, freeze_probs=check_bool("freeze_probs", freeze_probs),
                         capture=capture, execution=execution)
        h = self.final_norm(h)
        if unbatched:
            h = h[0]
            inter = jax.tree.map(lambda v: v[:, 0], inter)
        return h, inter

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


@functools.partial(jax.jit, static_argnames=("graphdef", "freeze_probs", "capture", "execution"))
def _scan(graphdef, params, h, mixes, positions, segment_ids, *, freeze_probs, capture, execution):
    """Scan the stacked blocks over the layer axis (jitted: eager calls compile once).

    Args:
      graphdef, params: nnx.split of the stacked blocks (params [H, ...]).
      h: [B, L, D] residual stream; mixes: [H] attention mixing weights or None.
      freeze_probs, capture, execution: as in Decoder.forward_with_intermediates
        (execution.remat wraps the block in jax.checkpoint, execution.unroll_layers
        unrolls the scan completely).

    Returns:
      (h_out [B, L, D], Intermediates with a leading axis H).
    """

    def body(carry, layer):
        layer_params, a = layer
        block = nnx.merge(graphdef, layer_params)
        return block(carry, mix=a, positions=positions, segment_ids=segment_ids,
                     freeze_probs=freeze_probs, capture=capture, execution=execution)

    if execution.remat:
        body = jax.checkpoint(body)
    depth = jax.tree.leaves(params)[0].shape[0]  # every block has a value projection
    return jax.lax.scan(body, h, (params, mixes), length=depth, unroll=execution.unroll_layers or 1)


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
