"""prior_for(cfg): the theory prior's Step-0 matrix is the model's own.

For every mask kind, theory.attention_matrix(prior_for(cfg)) equals the
uniform attention the model applies at Step 0: allowed / #allowed from
nn.allowed_mask (segment ids from the document lengths for "document"). For
ALiBi it equals the head average of softmax(ALiBi bias) over the allowed
keys, the bias from nn.alibi_bias (the model's slopes, either rule), under
every mask (ALiBi or, where the mask is not causal at L, a dense Content
prior). Sinks follow nn.MaskSpec's sinks. content=True measures the model's
scores: a model whose q.k scores are given by construction gets them back.
"""

import dataclasses

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


def _alibi_attention(cfg, length, segment_ids=None) -> np.ndarray:
    """Head average of softmax_j(-m_h |i - j|) over the allowed keys, from the model's bias."""
    seg = jnp.zeros((1, length), jnp.int32) if segment_ids is None else jnp.asarray(segment_ids)[None]
    seg = seg if cfg.mask == "document" else None  # one document unless given
    allowed = np.asarray(nn.allowed_mask(nn.MaskSpec.from_config(cfg), length, seg))[0]
    bias = np.asarray(nn.alibi_bias(cfg.heads, jnp.arange(length)[None], jnp.float64, rule=cfg.alibi_rule))[0]  # [N, L, L]
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
    (dict(mask="sliding_window", window=4, sinks=2), {}),
    (dict(mask="sliding_window", window=3, sinks=20), {}),  # more sinks than positions
    (dict(mask="causal", sinks=3), {}),
    (dict(mask="prefix_lm", prefix=5, sinks=7), {}),
]


@pytest.mark.parametrize("mask_kw,kw", MASKS, ids=[f"{m['mask']}-{m.get('window', m.get('prefix', k))}-s{m.get('sinks', 0)}"
                                                   for m, k in MASKS])
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


@pytest.mark.parametrize("heads,rule", [(1, "alibi"), (3, "alibi"), (8, "alibi"), (6, "geometric"), (12, "alibi")])
@pytest.mark.parametrize("mask_kw,kw", [(dict(mask="causal"), {}), (dict(mask="prefix_lm", prefix=1), {}),
                                        (dict(mask="sliding_window", window=16), {}),
                                        (dict(mask="document"), dict(doc_length=16))])
def test_alibi_prior_matrix_equals_the_models_softmax_of_its_bias(heads, rule, mask_kw, kw):
    length = 16
    cfg = nn.DecoderConfig(width=8 * heads, heads=heads, position="alibi", alibi_rule=rule, **mask_kw)
    prior = prior_for(cfg, length, **kw)
    assert prior == theory.ALiBi(heads, rule=rule)
    np.testing.assert_allclose(prior.float_slopes(), nn.alibi_slopes(heads, rule), rtol=1e-15)
    np.testing.assert_allclose(theory.attention_matrix(prior, length), _alibi_attention(cfg, length), rtol=1e-12,
                               atol=1e-15)


@pytest.mark.parametrize("heads,rule", [(3, "alibi"), (4, "geometric")])
@pytest.mark.parametrize("mask_kw,kw", [(dict(mask="sliding_window", window=4), {}),
                                        (dict(mask="sliding_window", window=4, sinks=2), {}),
                                        (dict(mask="bidirectional"), {}), (dict(mask="prefix_lm", prefix=6), {}),
                                        (dict(mask="document"), dict(doc_length=(5, 6, 5)))])
def test_alibi_under_other_masks_is_a_content_prior_equal_to_the_models(heads, rule, mask_kw, kw):
    length = 16
    cfg = nn.DecoderConfig(width=8 * heads, heads=heads, position="alibi", alibi_rule=rule, **mask_kw)
    prior = prior_for(cfg, length, **kw)
    assert isinstance(prior, theory.Content) and prior.slopes == rule and prior.dense == (cfg.mask == "prefix_lm")
    segments = _segments(prior.mask.lengths) if cfg.mask == "document" else None
    np.testing.assert_allclose(theory.attention_matrix(prior, length), _alibi_attention(cfg, length, segments),
                               rtol=1e-12, atol=1e-15)


def _scored_model(heads, position="none", **mask_kw):
    """A float64 model whose layer-1 scores are q.k = diag_h [i = j] exactly, by construction.

    x = e_i one-hot rows (L = width), q = k = x W with W = sqrt(d diag_h) I per head: q_i . k_j / sqrt(d)
    = diag_h [i = j]. Later layers see a changed input, so only layer 1 is checked.
    """
    from flax import nnx

    length = 8
    bonus = np.array([1.5, -0.5, 0.0, 2.0][:heads])
    cfg = nn.DecoderConfig(depth=2, width=length, heads=heads, head_dim=length, mlp="none", norm="none", position=position,
                           param_dtype="float64", **mask_kw)
    model = nn.Decoder(cfg, rngs=nnx.Rngs(0))
    w = np.concatenate([np.sqrt(np.sqrt(length) * abs(b)) * np.eye(length) for b in bonus], axis=1)  # [D, N d]
    sign = np.concatenate([np.sign(b) * np.ones(length) for b in bonus])
    q, k = model.blocks.attn.q.kernel, model.blocks.attn.k.kernel
    q[...] = q[...].at[0].set(jnp.asarray(w * sign))
    k[...] = k[...].at[0].set(jnp.asarray(w))
    return model, bonus, length


@pytest.mark.parametrize("mask_kw,position", [(dict(mask="causal"), "none"), (dict(mask="sliding_window", window=3, sinks=1), "none"),
                                              (dict(mask="causal"), "alibi")])
def test_content_scores_measured_from_the_model(mask_kw, position, monkeypatch):
    """Known scores come back: bonus = diag_h, offdiag = -bonus / (k - 1) row-averaged, layer 1."""
    from lostmid_jax.analysis import strength

    model, bonus, length = _scored_model(3, position, **mask_kw)
    original = strength.attention_probs
    monkeypatch.setattr(strength, "attention_probs", lambda m, x, layers: original(m, jnp.eye(length), layers))
    prior = prior_for(model.cfg, length, model=model, content=True, samples=1)
    assert isinstance(prior, theory.Content) and prior.layers == 2 and prior.heads == 3
    np.testing.assert_allclose(prior.diag[0], bonus, atol=1e-6)  # probabilities come back as float32
    mask = prior_for(dataclasses.replace(model.cfg, position="none"), length)
    assert prior.mask == mask
    assert prior.slopes == ("alibi" if position == "alibi" else None)
    counts = theory.attention_matrix(mask, length).astype(bool).sum(axis=1)[1:]
    np.testing.assert_allclose(prior.base[0], [np.mean(-b / counts) for b in bonus], atol=1e-6)


def test_score_statistics_recover_a_dense_content_prior():
    """Probabilities of theory.Content itself give back its bonus (independent of base and key scores' mean)."""
    from lostmid_jax.analysis.content_scores import score_statistics

    length, heads = 12, 2
    truth = theory.Content(heads=1, diag=0.8, base=0.3)
    probs = np.stack([theory.attention_matrix(truth, length)] * heads)[None]  # [H=1, N, L, L]
    stats = score_statistics(probs, np.tril(np.ones((length, length), bool)))
    np.testing.assert_allclose(stats.bonus, 0.8, rtol=1e-12)
    assert stats.rows == length - 1 and stats.samples == 1


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
        (lambda: prior_for(nn.DecoderConfig(), 8, content=True), "model"),
        (lambda: prior_for(nn.DecoderConfig(), 8, content="yes"), "content"),
        (lambda: prior_for(nn.DecoderConfig(attention="uniform"), 8, content=True,
                           model=_scored_model(1)[0]), "model"),
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
