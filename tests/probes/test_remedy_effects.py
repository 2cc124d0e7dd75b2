"""probes.remedy_effects: the Step-0 share against a dense matrix product, the paired comparison and its verdict
on outcomes with a known difference, and measure() on a tiny model."""

import dataclasses

import numpy as np
import pytest
from flax import nnx

from lostmid_jax.nn import Decoder, preset
from lostmid_jax.probes import token_probes
from lostmid_jax.probes.accuracy_by_passage import position_test
from lostmid_jax.probes.remedy_effects import Measurement, compare, measure, step0_share
from lostmid_jax.probes.scoring import ProbeScores


def _dense_share(length, depth, a, span, allowed):
    """sum over span of e_L^T ((1 - a) I + a A)^H with A uniform over ``allowed`` (an independent route)."""
    A = allowed / allowed.sum(axis=1, keepdims=True)
    N = (1 - a) * np.eye(length) + a * A
    w = np.linalg.matrix_power(N, depth)[-1]
    return w[span[0]:span[1]].sum()


def test_step0_share_matches_dense_matrices():
    cfg = preset("toy", width=16, depth=3, heads=2, kv_heads=1, vocab_size=40)
    i, j = np.meshgrid(np.arange(30), np.arange(30), indexing="ij")
    causal = (j <= i).astype(float)
    share, label = step0_share(cfg, 30, [(10, 14)], a=0.4)
    assert label == "causal" and share == pytest.approx(_dense_share(30, 3, 0.4, (10, 14), causal), rel=1e-12)
    # RoPE changes leave the prior, hence the share, exactly as it was
    rope = dataclasses.replace(cfg, rope_theta=cfg.rope_theta * 16)
    assert step0_share(rope, 30, [(10, 14)], a=0.4) == (share, label)
    # a window with sinks changes the prior itself
    sinks = dataclasses.replace(cfg, mask="sliding_window", window=8, sinks=2)
    allowed = ((j <= i) & ((i - j < 8) | (j < 2))).astype(float)
    other, other_label = step0_share(sinks, 30, [(10, 14)], a=0.4)
    assert other == pytest.approx(_dense_share(30, 3, 0.4, (10, 14), allowed), rel=1e-12, abs=1e-300)
    assert other_label != label and other != share


def _measurement(correct, logprob=None):
    correct = np.asarray(correct, bool)
    logp = np.where(correct, -0.5, -2.0) if logprob is None else logprob
    lp = np.stack([logp, np.full(correct.shape, -1.0)], axis=-1)
    scores = ProbeScores(logprob=lp, rank=np.where(correct, 1, 2), exact=correct, candidates=2)
    empty = np.zeros((0, 8))
    return Measurement(result=position_test(scores, n_boot=200), correct=correct, logprob=logp,
                       received_raw=empty, received_vs_uniform=empty, fact_attention=np.zeros(0),
                       influence=empty, fact_influence=np.zeros(0), step0_share=0.1, prior="causal", length=8)


def test_compare_is_paired_and_its_verdict_follows_the_interval():
    rng = np.random.default_rng(0)
    base = rng.random((80, 5)) < np.array([0.9, 0.6, 0.3, 0.6, 0.9])
    lifted = base.copy()
    lifted[:, 2] |= rng.random(80) < 0.6  # the middle helped in about 60% of the wrong cases
    effect = compare(_measurement(base), _measurement(lifted), n_boot=500)
    direct = lifted[:, 2].mean() - base[:, 2].mean()
    assert effect.middle.mean == pytest.approx(direct, abs=1e-12) and effect.verdict == "helps"
    assert effect.ends.mean == 0 and effect.ends.lo == effect.ends.hi == 0  # no spread: no interval width
    assert compare(_measurement(lifted), _measurement(base), n_boot=500).verdict == "hurts"
    same = compare(_measurement(base), _measurement(base), n_boot=500)
    assert same.verdict == "no difference beyond noise" and same.step0_ratio == 1.0
    assert effect.fact_attention is None  # fewer than 2 examples measured
    with pytest.raises(ValueError, match="same examples"):
        compare(_measurement(base), _measurement(base[:10]))


def test_measure_on_a_tiny_model():
    cfg = preset("toy", width=16, depth=2, heads=2, kv_heads=1, mlp_width=32, vocab_size=40, max_positions=64)
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    probes = token_probes(40, examples=3, passages=3, length=24, low=3)
    m = measure(model, probes, attention_examples=2, influence_examples=2, batch=3, n_boot=200)
    assert m.correct.shape == (3, 3) and m.received_raw.shape == (2, 24) and m.influence.shape == (2, 24)
    # an initialized model attends almost uniformly: the fact gets about what uniform attention gives it
    assert np.allclose(m.fact_attention, 1.0, atol=0.05)
    assert np.all((m.fact_influence > 0) & (m.fact_influence < 1)) and m.prior == "causal"
