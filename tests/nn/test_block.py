"""nn/block.py: one residual block equals its formula, composed from its own attention, norms and MLP."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lostmid_jax.nn import preset
from lostmid_jax.nn.block import Block
from lostmid_jax.nn.capture import Capture

X = jax.random.normal(jax.random.key(0), (1, 5, 8), jnp.float64)
POS = jnp.arange(5)[None]


def _block(**fields):
    cfg = preset("toy", depth=1, width=8, heads=2, mlp="gelu", mlp_width=16, param_dtype="float64", **fields)
    return Block(cfg, rngs=nnx.Rngs(0))


def _attn(block, x):
    return block.attn(x, positions=POS, segment_ids=None, freeze_probs=False, need_probs=False)[0]


@pytest.mark.parametrize("mix", [None, 0.3])
def test_pre_norm_block(mix):
    block = _block(pre_norm=True)
    a = _attn(block, block.norm1(X))
    h = X + a if mix is None else (1 - mix) * X + mix * a
    expected = h + block.mlp(block.norm2(h))
    out, inter = block(X, mix=None if mix is None else jnp.asarray(mix), positions=POS, capture=Capture())
    assert np.allclose(out, expected, rtol=1e-12, atol=1e-14)
    assert np.allclose(inter.attn_out_norm, jnp.linalg.norm(a, axis=-1), rtol=1e-12)
    assert np.allclose(inter.resid_norm, jnp.linalg.norm(X, axis=-1), rtol=1e-12)


def test_post_norm_and_no_residual():
    block = _block(pre_norm=False)
    h = block.norm1(X + _attn(block, X))
    assert np.allclose(block(X, mix=None, positions=POS)[0], block.norm2(h + block.mlp(h)), rtol=1e-12, atol=1e-14)
    bare = _block(residual=False)
    a = _attn(bare, bare.norm1(X))
    assert np.allclose(bare(X, mix=None, positions=POS)[0], bare.mlp(bare.norm2(a)), rtol=1e-12, atol=1e-14)
