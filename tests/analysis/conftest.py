"""Fixtures of the analysis tests."""

import jax
import jax.numpy as jnp
import pytest
from analysis_helpers import make_input, make_model
from flax import nnx


@pytest.fixture(scope="session")
def toy64():
    """(toy decoder in float64, x [16, 32])."""
    model = make_model()
    return model, make_input(model)


@pytest.fixture(scope="session")
def toy32(toy64):
    """(toy decoder in float32, x [16, 32]): toy64's parameters and input rounded to float32 (a float32
    graph without a second initialization, whose per-shape random programs cost ~3 s of compiles)."""
    model64, x64 = toy64
    graphdef, abstract = nnx.split(nnx.eval_shape(lambda: make_model("float32")))
    state = jax.tree.map(lambda a, want: jnp.asarray(a, want.dtype), nnx.state(model64), abstract)
    model = nnx.merge(graphdef, state)
    assert model.cfg.compute_dtype == "float32"
    return model, x64.astype(jnp.float32)
