"""Branch gains: the probe estimate against the dense Jacobian of the first layer's branch, and the layer
walk against the model's own forward pass."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lostmid_jax.analysis.branch_gains import GRAM_LIMIT, _run, branch_gains, key_gains, mlp_gains, mlp_gram
from lostmid_jax.nn import Decoder, preset


@pytest.fixture(scope="module")
def toy():
    cfg = preset("toy")
    return Decoder(cfg, rngs=nnx.Rngs(0)), jax.random.normal(jax.random.key(1), (8, cfg.width))


@pytest.fixture(scope="module")
def walked(toy):
    """One compiled layer walk serves both checks: (h after the last block, g_l^2 [H])."""
    model, x = toy
    h, s = _run(model, x, 64, 3)
    return h, np.asarray(s, np.float64).mean(axis=1)


def test_first_layer_gain_matches_the_dense_branch_jacobian(toy, walked):
    model, x = toy
    g2 = walked[1]
    graphdef, params = nnx.split(model.blocks)
    block = nnx.merge(graphdef, jax.tree.map(lambda v: v[0], params))
    pos = jnp.arange(8)[None]
    jac = jax.jit(jax.jacrev(lambda h: block.attn(block.norm1(h[None]), positions=pos, freeze_probs=True,
                                                need_probs=False)[0][0]))(x)  # the value pathway
    sq = np.sum(np.asarray(jac, np.float64) ** 2, axis=(1, 3))  # [i, j] ||d out_i / d h_j||_F^2
    i = np.arange(1, 9)
    exact = float((i * sq.sum(axis=1)).sum() / (model.cfg.width * 8))
    assert g2[0] == pytest.approx(exact, rel=0.15)
    # per key: sum_{i >= j} i^2 ||d out_i / d h_j||^2 / (D (L - j + 1))
    per_key = (i[:, None] ** 2 * sq).sum(axis=0) / (model.cfg.width * (8 - np.arange(8)))
    got = key_gains(model, x, probes=64, key=4)[0]
    assert got.shape == (8,) and got.mean() == pytest.approx(per_key.mean(), rel=0.15)
    np.testing.assert_allclose(got[:4], per_key[:4], rtol=0.3)  # the first keys, seen by the most queries
    assert g2.shape == (model.cfg.depth,) and np.all(g2 > 0)


def test_position_gains_match_the_dense_mlp_jacobian_per_position(toy):
    """k_{1,i}^2 = ||d MLP(norm2(h'_i)) / d h'_i||_F^2 / D on h' = x + Attn(norm1(x)), from 64 probes."""
    model, x = toy
    graphdef, params = nnx.split(model.blocks)
    block = nnx.merge(graphdef, jax.tree.map(lambda v: v[0], params))
    pos = jnp.arange(8)[None]
    mid = x + block.attn(block.norm1(x[None]), positions=pos, need_probs=False)[0][0]
    jac = jax.jit(jax.vmap(jax.jacrev(lambda v: block.mlp(block.norm2(v)))))(mid)  # [L, D, D]
    exact = np.sum(np.asarray(jac, np.float64) ** 2, axis=(1, 2)) / model.cfg.width
    got = mlp_gains(model, x, probes=64, key=5)
    assert got.shape == (model.cfg.depth, 8) and np.all(got > 0)
    np.testing.assert_allclose(got[0], exact, rtol=0.15)
    flat = Decoder(preset("toy", mlp="none"), rngs=nnx.Rngs(0))
    np.testing.assert_array_equal(mlp_gains(flat, x), np.zeros((model.cfg.depth, 8)))
    with pytest.raises(ValueError, match="probes"):
        mlp_gains(flat, x, probes=0)
    # the Gram kappa_1[i, i'] = tr(K_i^T K_i') / D of the weight-shared MLP, from one shared probe per draw
    gram = mlp_gram(model, x, probes=64, key=5)
    exact_gram = np.einsum("iab,jab->ij", np.asarray(jac, np.float64), np.asarray(jac, np.float64)) / model.cfg.width
    assert gram.shape == (model.cfg.depth, 8, 8)
    np.testing.assert_array_equal(gram, np.swapaxes(gram, 1, 2))
    scale = np.sqrt(np.outer(exact, exact))  # compared as correlations: the entries' own scale
    np.testing.assert_allclose(gram[0] / scale, exact_gram / scale, atol=0.2)
    assert np.abs(exact_gram / scale - np.eye(8)).max() > 0.2  # positions are correlated: not diagonal
    np.testing.assert_array_equal(mlp_gram(flat, x), np.zeros((model.cfg.depth, 8, 8)))
    with pytest.raises(ValueError, match="x has L"):
        mlp_gram(flat, np.zeros((int(np.sqrt(GRAM_LIMIT / 2)) + 1, model.cfg.width)))


def test_layer_walk_reproduces_the_forward_pass(toy, walked):
    model, x = toy
    h = walked[0]
    np.testing.assert_allclose(np.asarray(model.final_norm(h)[0]), np.asarray(model(x)), rtol=2e-5, atol=2e-6)


def test_bad_arguments_raise(toy, walked):
    model, x = toy
    np.testing.assert_array_equal(branch_gains(model, x, probes=64, key=3), walked[1])  # the public entry
    with pytest.raises(ValueError, match="probes"):
        branch_gains(model, x, probes=0)
    with pytest.raises(ValueError, match="x must"):
        branch_gains(model, x[:, :3])
    post = Decoder(preset("toy", pre_norm=False), rngs=nnx.Rngs(0))
    with pytest.raises(ValueError, match="model must be a pre-norm"):
        branch_gains(post, x)
