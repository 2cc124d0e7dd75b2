"""nn/init.py: GPT-2's scaled residual projections, Qwen2's plain normal init, token-flattened linears."""

import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lostmid_jax.nn import preset
from lostmid_jax.nn.init import linear


def _std(cfg, residual_out):
    layer = linear(cfg, 256, 256, bias=True, rngs=nnx.Rngs(0), residual_out=residual_out)
    assert np.all(np.asarray(layer.bias[...]) == 0)
    return float(np.std(np.asarray(layer.kernel[...])))


def test_gpt2_scales_the_projections_into_the_residual_stream():
    cfg = preset("toy", depth=8, init="gpt2", init_std=0.02, param_dtype="float64")
    assert _std(cfg, False) == pytest.approx(0.02, rel=0.02)
    assert _std(cfg, True) == pytest.approx(0.02 / 4, rel=0.02)  # std / sqrt(2 H), H = 8


def test_normal_init_does_not_scale():
    cfg = preset("toy", depth=8, init="normal", init_std=0.05, param_dtype="float64")
    assert _std(cfg, True) == pytest.approx(0.05, rel=0.02)


def test_token_linear_equals_a_matrix_product_over_any_leading_axes():
    cfg = preset("toy", param_dtype="float64")
    layer = linear(cfg, 3, 2, bias=True, rngs=nnx.Rngs(1))
    layer.bias[...] = jnp.array([1.0, -1.0])
    x = np.random.default_rng(0).normal(size=(2, 5, 3))
    expected = x @ np.asarray(layer.kernel[...]) + np.array([1.0, -1.0])
    assert np.asarray(layer(jnp.asarray(x))) == pytest.approx(expected, rel=1e-12)
