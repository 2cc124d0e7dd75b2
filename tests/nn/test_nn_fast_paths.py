"""The rewrites made for speed give the values of their plain definitions.

RoPE (halves swapped by a roll) vs the complex rotation z e^{i p theta_k};
TokenLinear vs x W + b; static mask blocks vs the mask's
definition and the traced blocks; an unrolled layer loop vs lax.scan; positions [L] vs [B, L].
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lostmid_jax.nn import MASK_KINDS, Decoder, DecoderConfig, Execution, MaskSpec, rope
from lostmid_jax.nn.init import TokenLinear
from lostmid_jax.nn.masks import allowed_block, static_allowed_block
from reference_masks import reference_mask


def complex_rope(x, positions, theta):
    """Rotate-half RoPE as complex multiplication: z_k = x_k + i x_{k+K/2} times e^{i p theta^(-2k/K)}."""
    x = np.asarray(x, np.float64)
    half = x.shape[-1] // 2
    angle = np.asarray(positions, np.float64)[..., None, None] * theta ** (-2.0 * np.arange(half) / x.shape[-1])
    z = (x[..., :half] + 1j * x[..., half:]) * np.exp(1j * angle)
    return np.concatenate([z.real, z.imag], axis=-1)


@pytest.mark.parametrize("pos_shape", [(1, 11), (3, 11)])
def test_rope_is_the_complex_rotation(pos_shape):
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.standard_normal((3, 11, 4, 8)))
    positions = jnp.asarray(rng.integers(0, 5000, pos_shape), jnp.int32)
    np.testing.assert_allclose(rope(x, positions, 1e4), complex_rope(x, positions, 1e4), rtol=1e-12, atol=1e-12)


def test_token_linear_is_x_w_plus_b():
    layer = TokenLinear(5, 3, use_bias=True, param_dtype=jnp.float64, rngs=nnx.Rngs(0),
                        bias_init=nnx.initializers.normal(1.0))
    w, b = np.asarray(layer.kernel[...]), np.asarray(layer.bias[...])
    for shape in [(5,), (7, 5), (2, 7, 5)]:
        x = np.random.default_rng(0).normal(size=shape)
        np.testing.assert_allclose(layer(jnp.asarray(x)), x @ w + b, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("mask", MASK_KINDS)
def test_static_mask_blocks_equal_traced_ones(mask):
    cfg = DecoderConfig(mask=mask, window=3 if mask == "sliding_window" else None,
                        prefix=4 if mask == "prefix_lm" else None)
    spec = MaskSpec.from_config(cfg)
    if mask == "document":  # needs segment ids: no static form
        with pytest.raises(ValueError, match="segment_ids"):
            static_allowed_block(spec, (0, 5), (0, 5))
        return
    full = reference_mask(12, mask, window=cfg.window, prefix=cfg.prefix)  # from the definition
    for (q0, q1), (k0, k1) in [((0, 5), (0, 5)), ((3, 9), (1, 12)), ((6, 7), (0, 12))]:
        static = static_allowed_block(spec, (q0, q1), (k0, k1))
        np.testing.assert_array_equal(static, full[q0:q1, k0:k1])
        np.testing.assert_array_equal(static, np.asarray(allowed_block(spec, (q0, q1), (k0, k1)))[0])
    for q0, q1 in [(0, 5), (3, 9), (11, 12)]:  # the key range holds every allowed key of the query block
        k0, k1 = spec.key_range((q0, q1), 12)
        cols = np.flatnonzero(full[q0:q1].any(axis=0))
        assert k0 == cols.min() and k1 == cols.max() + 1


def _model(**kw):
    cfg = DecoderConfig(depth=2, width=16, heads=4, kv_heads=2, position="rope", mlp="swiglu",
                        qkv_bias=True, param_dtype="float64", vocab_size=11, **kw)
    return Decoder(cfg, rngs=nnx.Rngs(4))


@pytest.mark.extended  # compiles scan and unrolled with gradients
def test_unrolled_layers_match_scan_values_and_gradients():
    tokens = jax.random.randint(jax.random.key(3), (2, 9), 0, 11)
    results = []
    for unroll in (False, True):
        graphdef, params = nnx.split(_model())
        run = Execution(unroll_layers=unroll)
        loss = lambda p: jnp.sum(jnp.tanh(nnx.merge(graphdef, p).lm(tokens, execution=run)))  # noqa: E731
        results.append(jax.jit(jax.value_and_grad(loss))(params))
    for a, b in zip(jax.tree.leaves(results[0]), jax.tree.leaves(results[1])):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def test_positions_shared_or_per_row_agree():
    model = _model()
    x = jax.random.normal(jax.random.key(5), (3, 9, 16), jnp.float64)
    pos = jnp.arange(9) + 4
    shared = model(x, positions=pos)
    np.testing.assert_allclose(model(x, positions=jnp.tile(pos, (3, 1))), shared, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(model(x, positions=pos[None]), shared, rtol=1e-13, atol=1e-13)
    for bad in (jnp.arange(8), jnp.zeros((2, 9), jnp.int32), jnp.zeros((3, 9, 1), jnp.int32)):
        with pytest.raises(ValueError, match="positions must have shape"):
            model(x, positions=bad)
