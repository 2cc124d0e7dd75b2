"""Squared VJP norms d<c, y_pos>/d x_j for a batch of cotangents c: the Jacobian engine.

Shapes: L positions, D width, K cotangents (probes), P pathways.

For a decoder y = f(x), x, y: [L, D], and a cotangent row c: [D] placed at
output row ``pos``, one reverse pass gives g = c^T d y_pos / d x: [L, D], and

    s[k, j] = || c_k^T J_j ||^2,     J_j = d y_pos / d x_j  (D x D).

With c_k = e_k for k = 1..D, sum_k s[k, j] = ||J_j||_F^2 (exact); with
Gaussian c_k it is an unbiased probe (see :mod:`.estimators`).

One forward pass (jax.vjp) is shared by all K cotangents; they run through the
backward pass in chunks of ``chunk`` with jax.lax.map(batch_size=chunk), a
vmap over the chunk, so each backward is one batched, matmul-heavy pass and
memory stays O(chunk * backward memory of one cotangent).

Pathway split (``split=True``): J_value is the Jacobian with the attention
probabilities held fixed (the model's ``freeze_probs``), and
J_score = J_total - J_value. Both use the same cotangent, and the score
gradient is the difference of the two gradients per cotangent, so its norms
are exact, not differences of norms. Then P = 3 rows: total, value, score.

Causal masks: y_pos depends only on x[:pos + 1], so the caller truncates the
input to that prefix (ProfileRequest.prefix) and the later positions get exact
zeros. The model runs under the Execution given at call time (the request's:
probabilities kept, blocked attention, remat as asked); its graph is never
rebuilt.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from flax import nnx

from ..nn import Execution

ENGINE_EXECUTION = Execution(keep_probs=True)  # the request's default: remat, probabilities kept, blocked


def _forward(graphdef, state, x, segment_ids, freeze_probs: bool, execution: Execution):
    model = nnx.merge(graphdef, state)
    kwargs = {} if segment_ids is None else {"segment_ids": segment_ids}
    return model(x, freeze_probs=freeze_probs, execution=execution, **kwargs)


@functools.partial(jax.jit, static_argnames=("graphdef", "position", "split", "chunk", "execution"))
def cotangent_sq_norms(graphdef, state, x, cotangents, segment_ids=None, *, position: int,
                       split: bool, chunk: int, execution: Execution = ENGINE_EXECUTION):
    """Per-cotangent squared gradient norms.

    Args:
      graphdef, state: nnx.split of a Decoder (graphdef is static).
      x: [L, D] input embeddings in the model's compute dtype.
      cotangents: [K, D] rows c_k applied at output row ``position``.
      segment_ids: optional [L] segment ids passed to the model.
      position: output row in [0, L).
      split: also compute the value and score pathways.
      chunk: cotangents per batched backward pass.
      execution: how the model runs (ProfileRequest.execution).

    Returns:
      [K, P, L] float array (>= float32) with s[k, p, j] = ||c_k^T J^p_j||^2,
      P = 3 (total, value, score) if ``split`` else 1.
    """

    def row(freeze_probs):
        return lambda x: _forward(graphdef, state, x, segment_ids, freeze_probs, execution)[position]

    _, vjp_total = jax.vjp(row(False), x)
    vjp_value = jax.vjp(row(True), x)[1] if split else None
    acc = jnp.promote_types(x.dtype, jnp.float32)

    def one(c):
        g_total = vjp_total(c)[0].astype(acc)  # [L, D]
        grads = [g_total]
        if split:
            g_value = vjp_value(c)[0].astype(acc)
            grads += [g_value, g_total - g_value]
        return jnp.stack([jnp.sum(g * g, axis=-1) for g in grads])  # [P, L]

    return jax.lax.map(one, cotangents, batch_size=chunk)


@functools.partial(jax.jit, static_argnames=("graphdef", "position", "freeze_probs", "execution"))
def dense_jacobian(graphdef, state, x, segment_ids=None, *, position: int, freeze_probs: bool = False,
                   execution: Execution = ENGINE_EXECUTION):
    """The full block row d y_pos / d x by jax.jacrev: [D, L, D] (small cases, cross-checks)."""
    return jax.jacrev(lambda x: _forward(graphdef, state, x, segment_ids, freeze_probs, execution)[position])(x)


def auto_chunk(cfg, length: int, count: int, budget_bytes: float = 2e9) -> int:
    """Cotangents per batch so the batched attention backward ([chunk, N, L, L], ~4 live
    temporaries of the compute dtype, >= 4 bytes) stays within ``budget_bytes``."""
    per = 4 * cfg.heads * length * length * 4
    return int(max(1, min(count, budget_bytes // per)))
