"""RoPE depends only on relative offsets; ALiBi slopes and biases."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lostmid_jax.nn import Capture, Decoder, DecoderConfig, alibi_slopes, rope

L, N, K = 9, 3, 8


def scores(q, k, positions, theta=10000.0):
    return jnp.einsum("lnk,mnk->nlm", rope(q, positions, theta), rope(k, positions, theta))


def test_rope_scores_invariant_to_shift():
    kq, kk = jax.random.split(jax.random.key(0))
    q = jax.random.normal(kq, (L, N, K), jnp.float64)
    k = jax.random.normal(kk, (L, N, K), jnp.float64)
    pos = jnp.arange(L)
    for shift in (1, 17, 1000):
        np.testing.assert_allclose(scores(q, k, pos + shift), scores(q, k, pos), rtol=1e-9, atol=1e-9)


def test_rope_scores_depend_on_offset_only():
    """Same q and k at every position: scores[i, j] is a function of i - j."""
    kq, kk = jax.random.split(jax.random.key(1))
    q = jnp.broadcast_to(jax.random.normal(kq, (1, N, K), jnp.float64), (L, N, K))
    k = jnp.broadcast_to(jax.random.normal(kk, (1, N, K), jnp.float64), (L, N, K))
    s = np.asarray(scores(q, k, jnp.arange(L), theta=100.0))
    np.testing.assert_allclose(s[:, 1:, 1:], s[:, :-1, :-1], rtol=1e-12, atol=1e-12)
    assert np.ptp(s[:, :, 0]) > 1e-3  # but not constant: it does depend on the offset


def test_rope_preserves_norm_and_is_identity_at_zero():
    x = jax.random.normal(jax.random.key(2), (L, N, K), jnp.float64)
    np.testing.assert_allclose(rope(x, jnp.zeros(L, jnp.int32), 1e4), x)
    np.testing.assert_allclose(jnp.linalg.norm(rope(x, jnp.arange(L), 1e4), axis=-1),
                               jnp.linalg.norm(x, axis=-1), rtol=1e-12)


def _probs(cfg, positions, seed=0):
    model = Decoder(cfg, rngs=nnx.Rngs(seed))
    x = jax.random.normal(jax.random.key(5), (L, cfg.width), jnp.float64)
    _, inter = model.forward_with_intermediates(x, positions=positions, capture=Capture(norms=False, probs=True))
    return np.asarray(inter.attn_probs)  # [H, N, L, L]


@pytest.mark.parametrize("position", ["rope", "alibi"])
def test_model_attention_shift_invariant(position):
    cfg = DecoderConfig(depth=2, width=8, heads=2, position=position, init_std=0.5,
                        param_dtype="float64")
    base = _probs(cfg, jnp.arange(L))
    np.testing.assert_allclose(_probs(cfg, jnp.arange(L) + 13), base, rtol=1e-9, atol=1e-12)


def test_learned_positions_are_absolute():
    cfg = DecoderConfig(depth=1, width=8, heads=2, position="learned", max_positions=32,
                        init_std=0.5, param_dtype="float64")
    assert not np.allclose(_probs(cfg, jnp.arange(L) + 13), _probs(cfg, jnp.arange(L)))
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    with pytest.raises(ValueError, match="max_positions"):
        model(jnp.ones((33, 8)))


def test_alibi_slopes_formula():
    np.testing.assert_allclose(alibi_slopes(8), [2.0 ** (-h) for h in range(1, 9)])
    np.testing.assert_allclose(alibi_slopes(4), [2.0 ** (-2 * h) for h in range(1, 5)])


def test_alibi_with_zero_queries_is_exponential_in_distance():
    cfg = DecoderConfig(depth=1, width=8, heads=2, position="alibi", param_dtype="float64")
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    model.blocks.attn.q.kernel[...] = jnp.zeros_like(model.blocks.attn.q.kernel[...])
    _, inter = model.forward_with_intermediates(jnp.ones((L, 8)), capture=Capture(probs=True))
    probs = np.asarray(inter.attn_probs[0])  # [N, L, L]
    i, j = np.indices((L, L))
    for h, m in enumerate(alibi_slopes(2)):
        logits = np.where(j <= i, -m * (i - j), -np.inf)
        expected = np.exp(logits - logits.max(1, keepdims=True))
        np.testing.assert_allclose(probs[h], expected / expected.sum(1, keepdims=True), atol=1e-14)
