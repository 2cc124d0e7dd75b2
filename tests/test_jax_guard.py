"""Regression guard for the jaxlib 0.10.2 XLA:CPU float32 miscompile.

jax-ml/jax#39103: jit-compiled float32 code with fused reductions can be
silently wrong on CPU (YNNPACK fusion). Eager mode and float64 are correct,
so each case compares the jitted float32 result against eager float32 and a
float64 reference. If an upgrade brings the bug back, these tests fail.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest


def _row_scaled_sum(a):
    return (a * a.sum(-1, keepdims=True)).sum(0)


def _layernorm_mix(x):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    y = (x - mu) / jnp.sqrt(var + 1e-5)
    causal = jnp.tril(jnp.ones((x.shape[0], x.shape[0]), x.dtype))
    attn = causal / causal.sum(-1, keepdims=True)
    return (attn @ y)[-1]


@pytest.mark.parametrize("fn,shape", [(_row_scaled_sum, (256, 64)), (_layernorm_mix, (128, 32))])
def test_jitted_float32_jacobian_matches_eager_and_float64(fn, shape):
    x64 = np.asarray(jax.random.normal(jax.random.key(0), shape, jnp.float64))
    x32 = jnp.asarray(x64, jnp.float32)
    jitted = np.asarray(jax.jit(jax.jacrev(fn))(x32), np.float64)
    eager = np.asarray(jax.jacrev(fn)(x32), np.float64)
    reference = np.asarray(jax.jacrev(fn)(jnp.asarray(x64)))
    scale = np.abs(reference).max()
    assert np.abs(eager - reference).max() <= 1e-4 * scale
    # The miscompile was off by 6.3 on entries of size ~26 (25%); float32
    # rounding is ~1e-6 relative.
    assert np.abs(jitted - reference).max() <= 1e-4 * scale, (
        f"jax {jax.__version__}: jitted float32 Jacobian differs from float64 "
        "(jax-ml/jax#39103 regression?)"
    )
