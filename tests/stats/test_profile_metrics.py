"""Comparison metrics against closed forms and independent routes."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from lostmid_jax import theory
from lostmid_jax.stats import profile_metrics as metrics


def test_distribution_and_positions():
    p = metrics.to_distribution([1.0, 3.0, 0.0, 4.0])
    np.testing.assert_allclose(p, [0.125, 0.375, 0.0, 0.5])
    np.testing.assert_allclose(metrics.positions(4), [0.25, 0.5, 0.75, 1.0])


def test_wasserstein_closed_forms():
    # all mass at x = 1/L vs all at x = 1: distance 1 - 1/L
    a, b = np.zeros(10), np.zeros(10)
    a[0], b[-1] = 1.0, 2.0
    assert metrics.wasserstein(a, b) == pytest.approx(0.9)
    # uniform vs theory row: integral |F_p - F_q| by hand
    w = theory.influence_row(50, 3, 0.5)
    u = np.ones(50)
    expected = np.sum(np.abs(np.cumsum(u / 50) - np.cumsum(w))[:-1]) / 50
    assert metrics.wasserstein(u, w) == pytest.approx(expected, rel=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0.01, 10.0), min_size=3, max_size=40, unique=True), st.floats(0.1, 100.0))
def test_metrics_are_scale_invariant(values, scale):
    a = np.asarray(values)
    b = a[::-1].copy()
    assert metrics.wasserstein(a, b) == pytest.approx(metrics.wasserstein(scale * a, b), abs=1e-12)
    assert metrics.spearman(a, b) == pytest.approx(metrics.spearman(scale * a, b), abs=1e-12)
    assert metrics.wasserstein(a, scale * a) == pytest.approx(0.0, abs=1e-12)


def test_spearman_matches_scipy():
    rng = np.random.default_rng(0)
    a, b = rng.random(30), rng.random(30)
    assert metrics.spearman(a, b) == pytest.approx(stats.spearmanr(a, b).statistic)
    assert metrics.spearman(a, np.exp(3 * a)) == pytest.approx(1.0)
    assert np.isnan(metrics.spearman(a, np.ones(30)))  # undefined for a constant profile


def test_u_statistics_is_summarize_log_row():
    w = theory.influence_row(64, 4, 0.6)
    s = metrics.u_statistics(10 * w)
    ref = theory.summarize_log_row(np.log(w))
    assert s.log10_peak_to_trough == pytest.approx(ref.log10_peak_to_trough, abs=1e-12)
    assert s.primacy_mass == pytest.approx(ref.primacy_mass, rel=1e-12)


@pytest.mark.parametrize("side", ["both", "left", "right"])
def test_valley_power_law_recovers_exact_law(side):
    length = 400
    j = np.arange(1, length + 1)
    dist = np.abs(j - length / 2)
    score = 3.0 * np.where(dist > 0, dist, 1.0) ** 0.7  # c = -0.7: rising away from the middle
    score[-1] = 1e6  # the recency delta is excluded from the fit
    fit = metrics.valley_power_law(score, side=side)
    assert fit.c == pytest.approx(-0.7, abs=1e-10) and fit.r2 == pytest.approx(1.0)
    assert fit.b == pytest.approx(3.0 / score.sum(), rel=1e-9)  # of the normalized profile
    assert fit.points == np.sum((dist >= 20) & (dist <= 180) & (j < length) & ((side == "both") | ((j < 200) if side == "left" else (j > 200))))


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: metrics.spearman([1, 2, 3], [1, 2]), "same length"),
        (lambda: metrics.wasserstein([1, -1, 3], [1, 2, 3]), "a must be"),
        (lambda: metrics.to_distribution([0, 0, 0]), "profile"),
        (lambda: metrics.to_distribution([1, np.nan]), "profile"),
        (lambda: metrics.valley_power_law(np.ones(100), lo=0.3, hi=0.2), "lo and hi"),
        (lambda: metrics.valley_power_law(np.ones(100), side="middle"), "side"),
        (lambda: metrics.valley_power_law(np.ones(8), lo=0.45, hi=0.46), "need >= 3"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_metrics_use_the_theory_middle():
    """One position convention: metrics.positions and the valley's centre are theory's."""
    assert metrics.positions is theory.positions
    length = 11  # odd L: the centre L/2 = 5.5 lies between positions 5 and 6
    score = np.abs(np.arange(1, length + 1) - theory.MIDDLE_X * length) + 1.0
    left = metrics.valley_power_law(score, lo=0.0, side="left")
    right = metrics.valley_power_law(score, lo=0.0, side="right")
    assert left.points == right.points == 5  # j = 1..5 and 6..10 (j = L = 11 excluded)
