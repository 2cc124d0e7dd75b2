"""JAX backend of the causal influence-row recurrence (jitted, float64).

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
