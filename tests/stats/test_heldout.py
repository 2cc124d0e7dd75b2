"""Held-out scoring: the predictor sees only fitting rows, the score uses only held-out rows."""

import math

import numpy as np
import pytest

from lostmid_jax.stats.agreement import agreement
from lostmid_jax.stats.heldout import Split, heldout_score, rms_log_error, split_halves


def _ensemble(rows=10, length=32, seed=0):
    rng = np.random.default_rng(seed)
    truth = np.linspace(2.0, 1.0, length) ** 2
    return truth, truth * np.exp(rng.normal(0, 0.1, (rows, length)))


def test_split_halves_are_disjoint_cover_and_repeat():
    s = split_halves(9, seed=3)
    assert len(s.fit) == 4 and len(s.score) == 5
    assert sorted(s.fit + s.score) == list(range(9))
    assert split_halves(9, seed=3) == s and split_halves(9, seed=4) != s
    with pytest.raises(ValueError, match="rows"):
        split_halves(2)
    with pytest.raises(ValueError, match="disjoint"):
        Split(fit=(0, 1), score=(1, 2))


def test_heldout_scoring_never_uses_a_fitted_seed():
    """Fitting rows are NaN where the score would read them, held-out rows NaN where the fit would:
    any leak raises (NaN is refused by agreement) or trips the predictor's own check."""
    truth, profiles = _ensemble()
    split = split_halves(profiles.shape[0], seed=1)
    fit, score = np.asarray(split.fit), np.asarray(split.score)
    poisoned = profiles.copy()
    poisoned[fit] = np.nan  # the scorer must not read these
    aux = np.arange(profiles.shape[0], dtype=float)[:, None] * np.ones((1, 3))
    aux[score] = np.nan  # the predictor must not read these
    seen = []

    def predict(fit_profiles, data):
        assert np.all(np.isfinite(data["aux"])), "the predictor saw a held-out row"
        seen.extend(int(v) for v in data["aux"][:, 0])
        return truth

    s = heldout_score(poisoned, {"aux": aux}, predict, split=split, n_boot=50)
    assert sorted(seen) == sorted(split.fit)
    direct = agreement(profiles[score], truth, n_boot=50, seed=0)
    assert s.agreement.spearman == direct.spearman and s.agreement.spearman_ci == direct.spearman_ci
    assert s.agreement.rows == len(split.score)


def test_the_fit_receives_exactly_the_fitting_rows():
    truth, profiles = _ensemble(rows=8)
    split = split_halves(8, seed=0)
    got = {}

    def predict(p, data):
        got["p"], got["ids"] = p, data["ids"]
        return p.mean(axis=0)

    heldout_score(profiles, {"ids": np.arange(8)}, predict, split=split, n_boot=10)
    np.testing.assert_array_equal(got["ids"], split.fit)
    np.testing.assert_array_equal(got["p"], profiles[list(split.fit)])


def test_rms_log_error_is_scale_free_and_zero_for_the_truth():
    truth, profiles = _ensemble()
    assert rms_log_error(truth, 7 * truth) == pytest.approx(0.0, abs=1e-12)
    q = truth * np.exp(0.2 * np.sin(np.arange(truth.size)))
    d = np.log(truth / q)
    assert rms_log_error(truth, q) == pytest.approx(float(np.std(d)), rel=1e-12)
    s = heldout_score(profiles, {}, lambda p, d: truth, split=split_halves(10), n_boot=200)
    lo, hi = s.rms_log_ci
    assert 0 <= lo <= hi and s.rms_log > 0 and math.isfinite(hi)


def test_binned_scores_match_agreement_with_bins():
    truth, profiles = _ensemble(length=64)
    split = split_halves(10, seed=2)
    s = heldout_score(profiles, {}, lambda p, d: truth, split=split, bins=8, n_boot=20)
    direct = agreement(profiles[list(split.score)], truth, bins=8, n_boot=20)
    assert s.agreement.wasserstein == direct.wasserstein and s.agreement.bins == 8


def test_bad_input_raises():
    truth, profiles = _ensemble()
    split = split_halves(10)
    with pytest.raises(ValueError, match="profiles"):
        heldout_score(profiles[0], {}, lambda p, d: truth, split=split)
    with pytest.raises(ValueError, match="split indices"):
        heldout_score(profiles[:4], {}, lambda p, d: truth, split=split)
    with pytest.raises(ValueError, match=r"data\['a'\]"):
        heldout_score(profiles, {"a": np.ones(3)}, lambda p, d: truth, split=split)
    with pytest.raises(ValueError, match="split"):
        heldout_score(profiles, {}, lambda p, d: truth, split=((0,), (1,)))


def test_misfit_is_about_one_for_the_truth_and_large_for_a_wrong_shape():
    rng = np.random.default_rng(5)
    truth = np.linspace(3.0, 1.0, 200)
    rows = truth * np.exp(rng.normal(0, 0.05, (40, 200)))
    split = split_halves(40, seed=0)
    good = heldout_score(rows, {}, lambda p, d: truth, split=split, n_boot=10)
    bad = heldout_score(rows, {}, lambda p, d: truth ** 1.5, split=split, n_boot=10)
    assert 0.5 < good.misfit.reduced < 2.0
    # a sign-flip p-value cannot go below its resolution: every other pattern scores lower
    assert bad.misfit.reduced > 10 and bad.misfit.p_value == pytest.approx(bad.misfit.min_p)  # T <= S dof: bounded
