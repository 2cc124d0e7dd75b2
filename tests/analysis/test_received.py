"""analysis.attention_received: uniform attention reads 1 against uniform under every mask (so the causal
decline is the mask's, not neglect); the raw column mean against harmonic numbers; token ids as input;
bad input named. (Parity with transformers' output_attentions: tests/probes/test_hf_parity.py.)"""

import numpy as np
import pytest
from flax import nnx

from lostmid_jax.analysis import attention_received
from lostmid_jax.analysis.received import allowed_keys, uniform_ratio_map
from lostmid_jax.nn import Decoder, DecoderConfig

L = 12


def _model(**kwargs):
    cfg = DecoderConfig(**{**dict(depth=2, width=16, heads=2, vocab_size=30), **kwargs})
    return Decoder(cfg, rngs=nnx.Rngs(0))


@pytest.mark.parametrize("mask", [dict(), dict(mask="sliding_window", window=4),
                                  dict(mask="sliding_window", window=3, sinks=2), dict(mask="prefix_lm", prefix=5),
                                  dict(mask="bidirectional")])
def test_uniform_attention_is_one_against_uniform(mask):
    model = _model(attention="uniform", **mask)
    x = np.random.default_rng(0).normal(size=(L, 16)).astype(np.float32)
    raw, ratio = attention_received(model, x)
    assert raw.shape == ratio.shape == (2, 2, L)
    np.testing.assert_allclose(ratio, 1.0, atol=1e-6)
    # the heat map of the same pairs: |S_i| A_ij = 1 on the mask, NaN off it
    allowed = allowed_keys(model.cfg, L)
    dense = allowed / allowed.sum(1, keepdims=True)
    m = uniform_ratio_map(dense, allowed)
    assert np.all(np.isnan(m[~allowed])) and np.allclose(m[allowed], 1.0)


def test_causal_raw_column_mean_is_the_harmonic_tail():
    """Uniform causal attention: raw_j = (1/L) sum_{i >= j} 1/i = (H_L - H_{j-1}) / L, falling with j."""
    model = _model(attention="uniform")
    raw, _ = attention_received(model, np.random.default_rng(1).normal(size=(L, 16)))
    harmonic = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, L + 1))])
    expected = (harmonic[L] - harmonic[:L]) / L
    np.testing.assert_allclose(raw, np.broadcast_to(expected, raw.shape), rtol=1e-6)
    assert np.all(np.diff(expected) < 0)


def test_token_ids_batches_and_layers():
    model = _model(position="rope")
    ids = np.random.default_rng(2).integers(0, 30, size=(3, L))
    raw, ratio = attention_received(model, ids)
    emb = np.asarray(model.embed(ids))
    raw_e, ratio_e = attention_received(model, emb)
    np.testing.assert_allclose(raw, raw_e, atol=1e-7)
    singles = [attention_received(model, row)[0] for row in ids]
    np.testing.assert_allclose(raw, np.mean(singles, axis=0), atol=1e-7)  # a batch is averaged
    last, _ = attention_received(model, ids[0], layers=-1)
    np.testing.assert_allclose(last[0], singles[0][1], atol=1e-7)
    # softmax attention under the causal mask: every query row sums to 1, so sum_j raw_j = 1 per head
    np.testing.assert_allclose(raw.sum(-1), 1.0, atol=1e-6)


@pytest.mark.parametrize("x,kwargs,match", [(np.zeros((L, 5)), {}, "^x must"), (np.array([0, 30]), {}, "^x token"),
                                            (np.zeros(L, int), dict(layers=[2]), "^layers"),
                                            (np.full((L, 16), np.nan), {}, "^x must be finite")])
def test_bad_input(x, kwargs, match):
    with pytest.raises(ValueError, match=match):
        attention_received(_model(), x, **kwargs)


def test_binned_ratio_map_is_the_mean_over_allowed_pairs():
    from lostmid_jax.analysis.received import binned_ratio_map

    rng = np.random.default_rng(3)
    allowed = allowed_keys(_model(mask="sliding_window", window=4).cfg, 10)
    probs = np.where(allowed, rng.random((10, 10)), 0.0)
    probs /= probs.sum(1, keepdims=True)
    heat = binned_ratio_map(probs, allowed, 3)
    size = allowed.sum(1)
    for qb in range(3):
        for kb in range(3):
            vals = [size[i] * probs[i, j] for i in range(10) for j in range(10)
                    if allowed[i, j] and i * 3 // 10 == qb and j * 3 // 10 == kb]
            assert (np.isnan(heat[qb, kb]) and not vals) or heat[qb, kb] == pytest.approx(np.mean(vals))
    assert np.isnan(heat[0, 2])  # no query of the first bin sees the last keys
