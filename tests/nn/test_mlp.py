"""nn/mlp.py: the GELU (tanh and erf) and SwiGLU MLPs against their formulas in numpy."""

import math

import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lostmid_jax.nn import preset
from lostmid_jax.nn.mlp import MLP

X = np.random.default_rng(2).normal(size=(4, 8))


def _weights(mlp, name):
    layer = getattr(mlp, name)
    return np.asarray(layer.kernel[...]), np.asarray(layer.bias[...]) if layer.bias is not None else 0.0


def _gelu_tanh(h):
    return 0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h**3)))


def _gelu_erf(h):
    from scipy.special import erf

    return 0.5 * h * (1 + erf(h / math.sqrt(2)))


@pytest.mark.parametrize("kind,act", [("gelu", _gelu_tanh), ("gelu-exact", _gelu_erf)])
def test_gelu_mlps(kind, act):
    cfg = preset("toy", width=8, heads=2, mlp=kind, mlp_width=16, mlp_bias=True, param_dtype="float64")
    mlp = MLP(cfg, rngs=nnx.Rngs(0))
    (wu, bu), (wd, bd) = _weights(mlp, "up"), _weights(mlp, "down")
    assert mlp.gate is None
    assert np.asarray(mlp(jnp.asarray(X))) == pytest.approx(act(X @ wu + bu) @ wd + bd, rel=1e-10, abs=1e-14)


def test_swiglu_mlp():
    cfg = preset("toy", width=8, heads=2, mlp="swiglu", mlp_width=16, mlp_bias=False, param_dtype="float64")
    mlp = MLP(cfg, rngs=nnx.Rngs(0))
    (wg, _), (wu, _), (wd, _) = (_weights(mlp, n) for n in ("gate", "up", "down"))
    g = X @ wg
    expected = (g / (1 + np.exp(-g)) * (X @ wu)) @ wd
    assert np.asarray(mlp(jnp.asarray(X))) == pytest.approx(expected, rel=1e-10, abs=1e-14)
