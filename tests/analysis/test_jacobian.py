"""analysis/jacobian.py: batched squared VJP norms against the dense Jacobian, pathways, and the auto chunk."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lostmid_jax.analysis.jacobian import auto_chunk, cotangent_sq_norms, dense_jacobian
from lostmid_jax.nn import Decoder, preset

CFG = preset("toy", depth=1, width=4, heads=2, mlp="none", param_dtype="float64")


@pytest.fixture(scope="module")
def model_and_input():
    model = Decoder(CFG, rngs=nnx.Rngs(0))
    graphdef, state = nnx.split(model)
    x = jax.random.normal(jax.random.key(1), (5, 4), jnp.float64)
    return graphdef, state, x


def test_unit_cotangents_give_the_frobenius_norms_and_the_pathways_split(model_and_input):
    graphdef, state, x = model_and_input
    s = np.asarray(cotangent_sq_norms(graphdef, state, x, jnp.eye(4), position=3, split=True, chunk=2))
    total = np.asarray(dense_jacobian(graphdef, state, x, position=3))  # [D, L, D]
    value = np.asarray(dense_jacobian(graphdef, state, x, position=3, freeze_probs=True))
    assert s.shape == (4, 3, 5)
    assert s[:, 0].sum(0) == pytest.approx((total**2).sum(axis=(0, 2)), rel=1e-10)
    assert s[:, 1].sum(0) == pytest.approx((value**2).sum(axis=(0, 2)), rel=1e-10)
    assert s[:, 2].sum(0) == pytest.approx(((total - value) ** 2).sum(axis=(0, 2)), rel=1e-8, abs=1e-20)
    assert np.all(s[:, :, 4] == 0)  # causal: position 3 does not see x_5


def test_a_cotangent_row_is_one_vjp(model_and_input):
    graphdef, state, x = model_and_input
    c = jnp.array([[0.5, -1.0, 2.0, 0.0]])
    s = np.asarray(cotangent_sq_norms(graphdef, state, x, c, position=4, split=False, chunk=1))
    total = np.asarray(dense_jacobian(graphdef, state, x, position=4))
    assert s[0, 0] == pytest.approx(((np.asarray(c[0]) @ total.reshape(4, -1)).reshape(5, 4) ** 2).sum(-1), rel=1e-10)


def test_auto_chunk_fits_four_attention_temporaries_in_the_budget():
    per = 4 * CFG.heads * 64 * 64 * 4
    assert auto_chunk(CFG, 64, 100, budget_bytes=10 * per) == 10
    assert auto_chunk(CFG, 64, 3, budget_bytes=10 * per) == 3
    assert auto_chunk(CFG, 64, 100, budget_bytes=1) == 1
