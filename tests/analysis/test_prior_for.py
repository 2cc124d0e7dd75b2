"""prior_for(cfg): the theory prior's Step-0 matrix is the model's own.

For every mask kind, theory.attention_matrix(prior_for(cfg)) equals the
uniform attention the model applies at Step 0: allowed / #allowed from
nn.allowed_mask (segment ids from the document lengths for "document"). For
ALiBi it equals the head average of softmax(ALiBi bias) over the allowed
keys, the bias from nn.alibi_bias (the model's slopes).
"""

import jax.numpy as jnp
import numpy as np
import pytest

from lostmid_jax import nn, theory
from lostmid_jax.analysis import prior_for


def _uniform_attention(cfg, length, segment_ids=None) -> np.ndarray:
    """The model's Step-0 uniform attention [L, L] from its mask."""
    seg = None if segment_ids is None else jnp.asarray(segment_ids)[None]
    allowed = np.asarray(nn.allowed_mask(nn.MaskSpec.from_config(cfg), length, seg))[0]
    return allowed / allowed.sum(axis=1, keepdims=True)


def _alibi_attention(cfg, length) -> np.ndarray:
    """Head average of softmax_j(-m_h |i - j|) over the allowed keys, from the model's bias."""
    seg = jnp.zeros((1, length), jnp.int32) if cfg.mask == "document" else None  # one document
    allowed = np.asarray(nn.allowed_mask(nn.MaskSpec.from_config(cfg), length, seg))[0]
    bias = np.asarray(nn.alibi_bias(cfg.heads, jnp.arange(length)[None], jnp.float64))[0]  # [N, L, L]
    logits = np.where(allowed, bias, -np.inf)
    weights = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return (weights / weights.sum(axis=-1, keepdims=True)).mean(axis=0)


def _segments(lengths) -> np.ndarray:
    return np.repeat(np.arange(len(lengths)), lengths)


MASKS = [
    (dict(mask="causal"), {}),
    (dict(mask="bidirectional"), {}),
    (dict(mask="sliding_window", window=1), {}),
    (dict(mask="sliding_window", window=4), {}),
    (dict(mask="sliding_window", window=40), {}),
    (dict(mask="prefix_lm", prefix=0), {}),
    (dict(mask="prefix_lm", prefix=5), {}),
    (dict(mask="prefix_lm", prefix=40), {}),  # n > L: every query sees every key
    (dict(mask="document"), dict(doc_length=4)),
    (dict(mask="document"), dict(doc_length=(3, 1, 7, 2))),
    (dict(mask="document"), dict(doc_length=13)),
]


@pytest.mark.parametrize("mask_kw,kw", MASKS, ids=[f"{m['mask']}-{m.get('window', m.get('prefix', k))}" for m, k in MASKS])
@pytest.mark.parametrize("attention,position", [("uniform", "none"), ("linear-value", "alibi"), ("softmax", "rope")])
def test_prior_matrix_equals_the_models_uniform_attention(mask_kw, kw, attention, position):
    length = 13
    cfg = nn.DecoderConfig(heads=2, attention=attention, position=position, **mask_kw)
    prior = prior_for(cfg, length, **kw)
    segments = None
    if cfg.mask == "document":
        segments = _segments(prior.lengths)
        assert segments.size == length
    np.testing.assert_allclose(theory.attention_matrix(prior, length), _uniform_attention(cfg, length, segments),
                               rtol=1e-15, atol=0)


@pytest.mark.parametrize("heads", [1, 3, 8])
@pytest.mark.parametrize("mask_kw,kw", [(dict(mask="causal"), {}), (dict(mask="prefix_lm", prefix=1), {}),
                                        (dict(mask="sliding_window", window=16), {}),
                                        (dict(mask="document"), dict(doc_length=16))])
def test_alibi_prior_matrix_equals_the_models_softmax_of_its_bias(heads, mask_kw, kw):
    length = 16
    cfg = nn.DecoderConfig(width=8 * heads, heads=heads, position="alibi", **mask_kw)
    prior = prior_for(cfg, length, **kw)
    assert prior == theory.ALiBi(heads)
    np.testing.assert_allclose(prior.float_slopes(), nn.alibi_slopes(heads), rtol=1e-15)
    np.testing.assert_allclose(theory.attention_matrix(prior, length), _alibi_attention(cfg, length), rtol=1e-12,
                               atol=1e-15)


def test_without_length_the_prior_is_the_masks():
    assert prior_for(nn.DecoderConfig()) == theory.Causal()
    assert prior_for(nn.DecoderConfig(mask="prefix_lm", prefix=7)) == theory.PrefixLM(7)
    assert prior_for(nn.DecoderConfig(mask="document"), doc_length=[2, 3]) == theory.Chunks((2, 3))


@pytest.mark.parametrize(
    "make,match",
    [
        (lambda: prior_for(nn.DecoderConfig(mask="document"), 8), "doc_length"),
        (lambda: prior_for(nn.DecoderConfig(mask="document"), doc_length=4), "needs length"),
        (lambda: prior_for(nn.DecoderConfig(mask="document"), 8, doc_length=0), "doc_length"),
        (lambda: prior_for(nn.DecoderConfig(mask="document"), 8, doc_length=(4, 3)), "lengths"),
        (lambda: prior_for(nn.DecoderConfig(), 8, doc_length=4), "doc_length"),
        (lambda: prior_for(nn.DecoderConfig(), 0), "length"),
        (lambda: prior_for(nn.DecoderConfig(mask="sliding_window", window=4, position="alibi"), 8), "alibi"),
        (lambda: prior_for(nn.DecoderConfig(mask="bidirectional", position="alibi")), "alibi"),
        (lambda: prior_for(nn.DecoderConfig(mask="document", position="alibi"), 8, doc_length=4), "alibi"),
    ],
)
def test_bad_input_raises_value_error_naming_argument(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_theory_comparison_uses_the_models_own_prior():
    """theory_row / fit_constant_alpha with prior=prior_for(cfg, L): a window model is fitted with its own prior."""
    from lostmid_jax.analysis import fit_constant_alpha, theory_row

    length, depth, a = 48, 5, 0.37
    prior = prior_for(nn.DecoderConfig(mask="sliding_window", window=6), length)
    row = theory.influence_row(length, depth, a, prior=prior)
    np.testing.assert_allclose(theory_row(length, [a] * depth, prior=prior), row, rtol=1e-12)
    assert fit_constant_alpha(row, depth, prior=prior) == pytest.approx(a, abs=1e-4)
    np.testing.assert_array_equal(theory_row(length, [a] * depth), theory_row(length, [a] * depth, prior=theory.Causal()))
