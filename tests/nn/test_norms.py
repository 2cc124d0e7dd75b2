"""nn/norms.py: LayerNorm and RMSNorm against their formulas in numpy, and the choice by config."""

import jax.numpy as jnp
import numpy as np
import pytest

from lostmid_jax.nn import preset
from lostmid_jax.nn.norms import Identity, LayerNorm, RMSNorm, make_norm

X = np.random.default_rng(1).normal(size=(3, 5)) * 4 + 1


def test_layernorm_is_the_two_pass_formula():
    norm = LayerNorm(5, eps=1e-5, use_bias=True, param_dtype=jnp.float64)
    norm.scale[...] = jnp.arange(1.0, 6.0)
    norm.bias[...] = jnp.full(5, 0.5)
    centered = X - X.mean(-1, keepdims=True)
    expected = centered / np.sqrt((centered**2).mean(-1, keepdims=True) + 1e-5) * np.arange(1.0, 6.0) + 0.5
    assert np.asarray(norm(jnp.asarray(X))) == pytest.approx(expected, rel=1e-12)


def test_rmsnorm_is_its_formula_and_keeps_half_precision_inputs_in_their_dtype():
    norm = RMSNorm(5, eps=1e-6, param_dtype=jnp.float64)
    expected = X / np.sqrt((X**2).mean(-1, keepdims=True) + 1e-6)
    assert np.asarray(norm(jnp.asarray(X))) == pytest.approx(expected, rel=1e-12)
    half = RMSNorm(5, eps=1e-6, param_dtype=jnp.float32)(jnp.asarray(X, jnp.bfloat16))
    assert half.dtype == jnp.bfloat16 and np.asarray(half, np.float64) == pytest.approx(expected, rel=2e-2)


def test_make_norm_follows_the_config():
    assert isinstance(make_norm(preset("toy", norm="layernorm")), LayerNorm)
    assert isinstance(make_norm(preset("toy", norm="rmsnorm")), RMSNorm)
    assert isinstance(make_norm(preset("toy", norm="none")), Identity)
    assert make_norm(preset("toy", norm="layernorm", norm_bias=False)).bias is None
