"""ALiBi slopes in nn follow the ALiBi paper's rule for every head count (Press et al. 2022);
2^(-8 h / N) only when asked for by name (alibi_rule="geometric")."""

import math

import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lostmid_jax.nn import Capture, Decoder, DecoderConfig, alibi_bias, alibi_slopes

HEAD_COUNTS = (*range(1, 17), 12, 20, 24, 48, 112)
L = 9


def published_slopes(n: int) -> list[float]:
    """The ALiBi paper's reference code (get_slopes), written out here independently of the library."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]

    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + published_slopes(2 * closest)[0::2][:n - closest]


@pytest.mark.parametrize("heads", HEAD_COUNTS)
def test_default_slopes_are_the_published_rule(heads):
    np.testing.assert_allclose(alibi_slopes(heads), published_slopes(heads), rtol=1e-13, atol=0)
    np.testing.assert_allclose(alibi_slopes(heads, "alibi"), published_slopes(heads), rtol=1e-13, atol=0)


@pytest.mark.parametrize("heads", HEAD_COUNTS)
def test_geometric_rule_by_name(heads):
    geometric = [2.0 ** (-8 * h / heads) for h in range(1, heads + 1)]
    np.testing.assert_allclose(alibi_slopes(heads, "geometric"), geometric, rtol=1e-13, atol=0)
    same = np.allclose(alibi_slopes(heads), geometric, rtol=1e-13, atol=0)
    assert same == (heads & (heads - 1) == 0)  # the rules agree exactly when N is a power of two


def test_non_power_of_two_examples():
    """N = 12: the 8-head sequence 2^-1 .. 2^-8, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5 (every other 16-head slope)."""
    np.testing.assert_allclose(alibi_slopes(12), [2.0 ** -e for e in (*range(1, 9), 0.5, 1.5, 2.5, 3.5)], rtol=1e-15)
    np.testing.assert_allclose(alibi_slopes(6), [2.0 ** -e for e in (2, 4, 6, 8, 1, 3)], rtol=1e-15)


def test_bloom_176b_head_count():
    """N = 112 (BLOOM-176B): as a set, exactly 16 slopes equal a 2^(-8 h / N) value (2^(-h / 8) for h = 4, 8, ..,
    64, i.e. 2^(-g / 14) for g = 7, 14, .., 112); head by head, none does."""
    ours, geometric = alibi_slopes(112), alibi_slopes(112, "geometric")
    shared = [m for m in ours if np.any(np.isclose(geometric, m, rtol=1e-12, atol=0))]
    np.testing.assert_allclose(sorted(shared), sorted(2.0 ** (-h / 8) for h in range(4, 65, 4)), rtol=1e-13)
    assert len(shared) == 16
    assert not np.any(np.isclose(ours, geometric, rtol=1e-12, atol=0))
    assert ours.max() == 2.0 ** (-1 / 16) and geometric.max() == 2.0 ** (-1 / 14)


def test_bias_and_config_carry_the_rule():
    pos = jnp.arange(L)[None]
    i, j = np.indices((L, L))
    for rule in ("alibi", "geometric"):
        bias = np.asarray(alibi_bias(6, pos, jnp.float64, rule=rule))[0]  # [N, L, L]
        np.testing.assert_array_equal(bias, -alibi_slopes(6, rule)[:, None, None] * np.abs(i - j))
    assert DecoderConfig().alibi_rule == "alibi"
    with pytest.raises(ValueError, match="alibi_rule"):
        DecoderConfig(position="alibi", alibi_rule="2^(-8h/n)")


def _zero_query_model(rule: str, heads: int = 6):
    cfg = DecoderConfig(depth=1, width=2 * heads, heads=heads, position="alibi", alibi_rule=rule,
                        param_dtype="float64")
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    model.blocks.attn.q.kernel[...] = jnp.zeros_like(model.blocks.attn.q.kernel[...])
    return cfg, model


def _expected_probs(slopes):
    i, j = np.indices((L, L))
    logits = np.where(j <= i, -slopes[:, None, None] * (i - j), -np.inf)
    e = np.exp(logits - logits.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)  # [N, L, L]


@pytest.mark.parametrize("rule", ["alibi", "geometric"])
def test_decoder_attention_uses_the_rule(rule):
    """Zero queries: every head's attention is softmax_j(-m_h (i - j)) with that rule's m_h (6 heads), on the
    dense route (probabilities captured) and on the blocked route (same output)."""
    cfg, model = _zero_query_model(rule)
    x = np.random.default_rng(0).normal(size=(L, cfg.width))
    y, inter = model.forward_with_intermediates(jnp.asarray(x), capture=Capture(probs=True))
    probs = np.asarray(inter.attn_probs[0])
    np.testing.assert_allclose(probs, _expected_probs(alibi_slopes(6, rule)), atol=1e-14)
    other = "geometric" if rule == "alibi" else "alibi"
    assert np.abs(probs - _expected_probs(alibi_slopes(6, other))).max() > 1e-3
    np.testing.assert_allclose(np.asarray(model(jnp.asarray(x))), np.asarray(y), atol=1e-13)  # blocked route


def test_transformers_slopes_are_the_published_rule():
    """BLOOM's _get_alibi_slopes and MPT's build_mpt_alibi_tensor (alibi_bias_max 8) in transformers give the
    published slopes, in the same head order, for every head count here (float32)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers.models.bloom.modeling_bloom import _get_alibi_slopes
    from transformers.models.mpt.modeling_mpt import build_mpt_alibi_tensor

    for heads in HEAD_COUNTS:
        bloom = _get_alibi_slopes(heads, torch.device("cpu")).double().numpy()
        mpt = -build_mpt_alibi_tensor(heads, 2)[:, 0, 0].double().numpy()  # bias m_h (j - 1) at key j = 0
        np.testing.assert_allclose(bloom, alibi_slopes(heads), rtol=2e-6, err_msg=f"BLOOM, N={heads}")
        np.testing.assert_allclose(mpt, alibi_slopes(heads), rtol=2e-6, err_msg=f"MPT, N={heads}")
