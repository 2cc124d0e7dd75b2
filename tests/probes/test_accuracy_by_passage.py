"""probes.accuracy_by_passage (position_test): Wilson intervals per passage against scipy's independent implementation, the middle
and end passages, the paired gaps against a direct computation, and the verdict."""

import numpy as np
import pytest
from scipy.stats import binomtest

from lostmid_jax.probes.accuracy_by_passage import middle_passages, position_test
from lostmid_jax.probes.scoring import ProbeScores


def _scores(correct, logprob_right=None, candidates=4):
    correct = np.asarray(correct, bool)
    e, k = correct.shape
    right = np.where(correct, -0.5, -2.0) if logprob_right is None else logprob_right
    logprob = np.full((e, k, candidates), -1.0)
    logprob[..., 0] = right
    return ProbeScores(logprob=logprob, rank=np.where(correct, 1, 2), exact=correct, candidates=candidates)


def test_middle_passages():
    assert [middle_passages(k) for k in (2, 3, 4, 5, 6)] == [(), (2,), (2, 3), (3,), (3, 4)]
    with pytest.raises(ValueError, match="passages"):
        middle_passages(1)


def test_rates_intervals_and_gap():
    rng = np.random.default_rng(0)
    p_right = np.array([0.9, 0.7, 0.4, 0.7, 0.85])
    correct = rng.random((120, 5)) < p_right
    res = position_test(_scores(correct))
    for p in range(5):
        k = int(correct[:, p].sum())
        ci = binomtest(k, 120).proportion_ci(confidence_level=0.95, method="wilson")  # independent code
        assert res.accuracy[p] == k / 120
        assert (res.accuracy_lo[p], res.accuracy_hi[p]) == pytest.approx((ci.low, ci.high), abs=1e-12)
    gap = correct[:, 2].mean() - correct[:, [0, 4]].mean()  # mean over examples of middle - mean(ends)
    assert res.accuracy_gap.mean == pytest.approx(gap, abs=1e-12)
    assert res.middle == (3,) and res.chance == 0.25
    assert res.verdict == "middle worse" and res.accuracy_gap.hi < 0 and res.logprob_gap.hi < 0


def test_no_difference_beyond_noise_and_two_passages():
    rng = np.random.default_rng(1)
    correct = rng.random((40, 3)) < 0.6
    res = position_test(_scores(correct))
    assert res.accuracy_gap.lo < 0 < res.accuracy_gap.hi and res.verdict == "no difference beyond noise"
    two = position_test(_scores(rng.random((10, 2)) < 0.5))
    assert two.verdict == "no middle passage (k = 2)" and np.isnan(two.accuracy_gap.mean)


def test_bad_input():
    with pytest.raises(ValueError, match="scores"):
        position_test(_scores(np.ones((1, 3))))
