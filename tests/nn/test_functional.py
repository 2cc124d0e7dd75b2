"""nn/functional.py: a Decoder as a pure function of its state, ensembles in one call, parameter counts."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lostmid_jax.nn import Decoder, preset
from lostmid_jax.nn.functional import apply_fn, init_ensemble, param_count

CFG = preset("toy", depth=1, width=8, heads=2, mlp="gelu", mlp_width=16, param_dtype="float64")


def test_apply_fn_computes_what_the_module_computes():
    model = Decoder(CFG, rngs=nnx.Rngs(0))
    x = jax.random.normal(jax.random.key(1), (5, 8), jnp.float64)
    _, state, fn = apply_fn(model)
    assert np.allclose(fn(state, x), model(x), rtol=1e-13, atol=0)
    _, state, fn = apply_fn(model, with_intermediates=True)
    y, _ = fn(state, x)
    assert np.allclose(y, model(x), rtol=1e-13, atol=0)


def test_an_ensemble_member_equals_the_model_of_its_key():
    keys = jax.random.split(jax.random.key(3), 2)
    ensemble = nnx.state(init_ensemble(CFG, keys), nnx.Param)
    for e in range(2):
        member = nnx.state(Decoder(CFG, rngs=nnx.Rngs(keys[e])), nnx.Param)
        pairs = zip(jax.tree.leaves(ensemble), jax.tree.leaves(member))
        assert all(np.array_equal(stacked[e], single) for stacked, single in pairs)


def test_param_count_by_hand():
    d, f = 8, 16
    cfg = preset("toy", depth=3, width=d, heads=2, kv_heads=2, mlp="gelu", mlp_width=f, vocab_size=None,
                 position="none", qkv_bias=True, out_bias=False, mlp_bias=False, norm="rmsnorm", final_norm=True)
    per_block = 3 * (d * d + d) + d * d + d * f + f * d + 2 * d  # q, k, v with biases; o; up, down; two RMSNorms
    assert param_count(cfg) == 3 * per_block + d  # and the final RMSNorm
    assert param_count(preset("toy", vocab_size=10, tie_embeddings=False)) == \
        param_count(preset("toy", vocab_size=10, tie_embeddings=True)) + 10 * preset("toy").width  # lm_head
