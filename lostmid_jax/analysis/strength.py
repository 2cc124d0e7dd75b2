"""Effective attention strength per layer, measured from a model's intermediates.

Shapes: L positions, D width, H depth, N heads.

Following Herasimchyk et al. (arXiv:2602.16837), block l's residual update
x + Attn(norm(x)) is read as (1 - a_l) I + a_l M with

    a_l = E_i [ ||attn_out_i|| / (||resid_i|| + ||attn_out_i||) ],

where resid_i is the residual stream entering block l at position i and
attn_out_i the attention branch's output there (before it is added). The
expectation is the mean over positions i = 1..L (and over whatever inputs the
caller averages). These a_l feed theory.influence_row as a per-layer schedule.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from ..nn import Capture, Execution, Intermediates
from . import _validate

_NORMS, _PROBS = Capture(norms=True, probs=False), Capture(norms=True, probs=True)


@functools.partial(jax.jit, static_argnames=("graphdef", "capture", "execution"))
def _intermediates(graphdef, state, x, *, capture: Capture, execution: Execution) -> Intermediates:
    return nnx.merge(graphdef, state).forward_with_intermediates(x, capture=capture, execution=execution)[1]


def attention_strength(model, x) -> np.ndarray:
    """Measured a_l for each layer: [H] float64 in [0, 1].

    Args:
      model: an nn.Decoder.
      x: [L, D] input embeddings.

    Returns:
      a_l = mean_i ||attn_out_i|| / (||resid_i|| + ||attn_out_i||) (0 where
      both norms are 0).
    """
    return attention_strength_under(model, x, Execution())


def attention_strength_under(model, x, execution: Execution) -> np.ndarray:
    """:func:`attention_strength` with the model run under ``execution`` (e.g. the Execution it
    is trained with: the same function, rounded as in training)."""
    x = jnp.asarray(_validate.check_input(x, model.cfg.width), model.cfg.compute_dtype)
    graphdef, state = nnx.split(model)
    inter = _intermediates(graphdef, state, x, capture=_NORMS, execution=execution)
    attn = np.asarray(inter.attn_out_norm, np.float64)  # [H, L]
    resid = np.asarray(inter.resid_norm, np.float64)
    total = attn + resid
    ratio = np.divide(attn, total, out=np.zeros_like(total), where=total > 0)
    return ratio.mean(axis=-1)


def attention_probs(model, x, layers) -> np.ndarray:
    """Attention probabilities of chosen layers: [len(layers), N, L, L] float32.

    Args:
      model: an nn.Decoder.
      x: [L, D] input embeddings (every layer's H N L^2 probabilities are
        captured, so keep L moderate).
      layers: layer indices in [0, H).
    """
    depth = model.cfg.depth
    layers = [int(l) for l in layers]
    if not layers or any(not 0 <= l < depth for l in layers):
        raise ValueError(f"layers must be a non-empty list of indices in [0, {depth}), got {layers!r}")
    x = jnp.asarray(_validate.check_input(x, model.cfg.width), model.cfg.compute_dtype)
    graphdef, state = nnx.split(model)
    probs = _intermediates(graphdef, state, x, capture=_PROBS, execution=Execution()).attn_probs  # [H, N, L, L]
    return np.asarray(probs[np.asarray(layers)], np.float32)
