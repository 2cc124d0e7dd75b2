"""Regression guard for the jaxlib 0.10.2 XLA:CPU float32 miscompile.

jax-ml/jax#39103: jit-compiled float32 code with fused reductions can be
silently wrong on CPU (YNNPACK fusion). Eager mode and float64 are correct,
so each case compares the jitted float32 result against eager float32 and a
float64 reference. If an upgrade brings the bug back, these tests fail.

The cases run in a fresh process with XLA's optimizations on, as users get them
(the default test run turns most of them off to save time: tests/conftest.py).
"""

import os
import subprocess
import sys

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


CASES = {"_row_scaled_sum": (256, 64), "_layernorm_mix": (128, 32)}


def check(fn, shape):
    """Raise AssertionError when jit(jacrev(fn)) in float32 is off from float64 beyond float32 rounding."""
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


def test_jitted_float32_jacobian_matches_eager_and_float64():
    """Every case, in one fresh process with XLA's optimizations on (the default run turns most off)."""
    env = dict(os.environ, JAX_ENABLE_X64="1", JAX_PLATFORMS="cpu", JAX_DISABLE_MOST_OPTIMIZATIONS="0")
    code = (f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); import jax, test_jax_guard as g; "
            "assert not jax.config.read('jax_disable_most_optimizations'); "
            "[g.check(getattr(g, name), shape) for name, shape in g.CASES.items()]; print('ok')")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]
