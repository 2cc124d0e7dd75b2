"""JAX backend of the influence-row recurrence (jitted, float64): the causal prior and causal Content priors.

The same recurrence as the structured operator of :mod:`.prior_ops` for the
causal prior, r <- (1 - a) r + a suffix_cumsum(r / i), written in jax so the
schedule can be scanned with ``lax.scan`` under jit. Imported only by
``influence_row(..., backend="jax")``: importing lostmid_jax.theory loads no
jax. float64 is switched on locally with ``jax.enable_x64`` so the caller's
global JAX settings are untouched.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def _row_from_schedule(schedule: jax.Array, inv: jax.Array) -> jax.Array:
    row = jnp.zeros_like(inv).at[-1].set(1.0)

    def block(r, a):
        suffix = jnp.cumsum((r * inv)[::-1])[::-1]
        return (1.0 - a) * r + a * suffix, None

    row, _ = jax.lax.scan(block, row, schedule)
    return row


def row_jax(length: int, schedule: tuple) -> jax.Array:
    """Row as a float64 jax array [L]; per-layer a as a float64 vector [H]."""
    with jax.enable_x64(True):
        inv = 1.0 / jnp.arange(1, length + 1, dtype=jnp.float64)
        a = jnp.asarray(np.asarray([float(v) for v in schedule], dtype=np.float64).reshape(-1))
        return _row_from_schedule(a, inv)


@jax.jit
def _content_layer(r: jax.Array, a: jax.Array, g: jax.Array, q: jax.Array, extra: jax.Array, p: jax.Array) -> jax.Array:
    """One block of a causal Content prior: r <- (1 - a) r + a sum_h p_h g (G_h(r / Z_h) + extra_h r / Z_h).

    Shapes: r, g [L]; q = e^(-m'), extra = e^(d') - 1, p [N]. Z_h and G_h are
    the forward and reverse geometric scans f_i = q f_{i-1} + x_i.
    """

    def scan(x, reverse):  # x [L, N] -> [L, N]
        def step(carry, xi):
            carry = q * carry + xi
            return carry, carry

        _, out = jax.lax.scan(step, jnp.zeros_like(q), x, reverse=reverse)
        return out

    gk = jnp.broadcast_to(g[:, None], (g.size, q.size))
    norm = scan(gk, False) + extra * gk
    u = r[:, None] / norm
    out = gk * (scan(u, True) + extra * u)
    return (1.0 - a) * r + a * (out @ p)


def content_row_jax(length: int, schedule: tuple, prior) -> jax.Array:
    """Row of a Content prior over the causal mask (ALiBi, self bonus, key scores), float64 jax array [L].

    Raises:
      ValueError: naming ``backend``, for any other prior (use backend="float64").
    """
    from ..masks import Causal, Content
    from ..masks.alibi_slopes import float_slopes

    if not (isinstance(prior, Content) and prior.mask == Causal()):  # validation
        raise ValueError(f"backend 'jax' supports prior=Causal() and Content(mask=Causal(), ...) only, got prior={prior!r}; "
                         "use backend='float64'")
    t = float(prior.temperature)
    with jax.enable_x64(True):
        if prior.scores is None:
            g = jnp.ones(length, dtype=jnp.float64)
        else:
            c = np.asarray([float(v) for v in prior.scores])
            g = jnp.asarray(np.exp((c - c.max()) / t))
        p = jnp.asarray(np.asarray([float(w) for w in prior.weights()]))
        row = jnp.zeros(length, dtype=jnp.float64).at[-1].set(1.0)
        params = []
        for layer in range(prior.layers):
            values = prior.layer_values(layer)
            slopes = values["slopes"]
            if slopes is None:
                m = np.zeros(prior.heads)
            elif isinstance(slopes, str):
                m = np.asarray(float_slopes(prior.heads, slopes))
            else:
                m = np.asarray([float(v) for v in slopes])
            q = jnp.asarray(np.exp(-m / t))
            extra = jnp.asarray(np.expm1(np.asarray([float(d) for d in values["diag"]]) / t))
            params.append((q, extra))
        for layer, a in reversed(list(enumerate(schedule))):  # e_L^T N_H ... N_1: N_H first
            if a == 0:
                continue
            q, extra = params[layer if prior.layers > 1 else 0]
            row = _content_layer(row, jnp.float64(float(a)), g, q, extra, p)
        return row
