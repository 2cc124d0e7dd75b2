"""Functional views of a Decoder for jax.jit / jax.jacrev / jax.vmap.

NNX has no nnx.jacrev: split the model into (graphdef, state) once and
differentiate a pure function of (state, x) that merges them back.

    graphdef, state, fn = apply_fn(model)
    y = jax.jit(fn)(state, x)                                   # [L, D]
    jac = jax.jacrev(fn, argnums=1)(state, x)                   # [L, D, L, D]
    value = jax.jacrev(functools.partial(fn, freeze_probs=True), argnums=1)(state, x)
    y = fn(state, x, execution=Execution(remat=False))         # how it runs: at call time
"""

from __future__ import annotations

import math
from typing import Callable

import jax
from flax import nnx

from .capture import Intermediates
from .config import DecoderConfig
from .decoder import Decoder


def apply_fn(model: Decoder, *,
             with_intermediates: bool = False) -> tuple[nnx.GraphDef, nnx.State, Callable]:
    """Split a Decoder into a pure function of its state.

    Args:
      model: the Decoder.
      with_intermediates: make fn return (y, intermediates) as
        Decoder.forward_with_intermediates does.

    Returns:
      (graphdef, state, fn) with fn(state, x, **kwargs) -> y (or (y,
      Intermediates)), where kwargs are the call's keyword arguments
      (positions, segment_ids, freeze_probs, execution, and capture with
      intermediates). freeze_probs, execution and capture are static: bind
      them with functools.partial before jax.jit.
    """
    graphdef, state = nnx.split(model)

    def fn(state, x, **kwargs):
        module = nnx.merge(graphdef, state)
        if with_intermediates:
            return module.forward_with_intermediates(x, **kwargs)
        return module(x, **kwargs)

    return graphdef, state, fn


def forward_with_intermediates(model: Decoder, x: jax.Array, **kwargs) -> tuple[jax.Array, Intermediates]:
    """(y, per-layer Intermediates); see Decoder.forward_with_intermediates."""
    return model.forward_with_intermediates(x, **kwargs)


def init_ensemble(cfg: DecoderConfig, keys: jax.Array) -> Decoder:
    """Initialize one Decoder per key in a single vmapped call.

    Args:
      cfg: the architecture.
      keys: [E] PRNG keys (jax.random.split(jax.random.key(seed), E)).

    Returns:
      A Decoder whose every parameter has a leading ensemble axis E; member e
      equals Decoder(cfg, rngs=nnx.Rngs(keys[e])). Apply it with
      ``graphdef, state, fn = apply_fn(ens); jax.vmap(fn, in_axes=(0, None))(state, x)``.
    """
    return nnx.vmap(lambda key: Decoder(cfg, rngs=nnx.Rngs(key)))(keys)


def param_count(cfg: DecoderConfig) -> int:
    """Number of parameters (embeddings included), from nnx.eval_shape (no allocation)."""
    abstract = nnx.eval_shape(lambda: Decoder(cfg, rngs=nnx.Rngs(0)))
    return sum(math.prod(p.shape) for p in jax.tree.leaves(nnx.state(abstract, nnx.Param)))
