"""stats.profile_intervals: bootstrap intervals of a mean profile's statistics, against a direct loop."""

import math

import numpy as np
import pytest

from lostmid_jax.stats import profile_metrics as metrics
from lostmid_jax.stats.agreement import bootstrap_interval, bootstrap_weights
from lostmid_jax.stats.profile_intervals import mean_profile_intervals, score_fraction_interval


def _rows(seed=0, rows=6, length=40):
    rng = np.random.default_rng(seed)
    x = np.arange(1, length + 1) / length
    n = np.exp(6 * (x - 0.5) ** 2) * np.exp(0.2 * rng.standard_normal((rows, length)))
    return n / n.sum(axis=1, keepdims=True)


def test_mean_profile_intervals_equal_a_direct_bootstrap():
    p = _rows()
    w = bootstrap_weights(p.shape[0], 50, 3)
    mean = p.mean(0)
    points = {"log10_peak_to_trough": metrics.log10_peak_to_trough(mean),
              "log10_peak_to_trough_body": metrics.log10_peak_to_trough(mean[:-1])}
    ci = mean_profile_intervals(p, w, mean, points, loop_boot=20)
    direct = [metrics.log10_peak_to_trough(r @ p) for r in w]
    want = bootstrap_interval(points["log10_peak_to_trough"], direct, p.shape[0], bounds=(0.0, math.inf))
    assert ci["log10_peak_to_trough"] == pytest.approx(want, rel=1e-12)
    reps = [metrics.profile_statistics(r @ p)["middle_mass"] for r in w[:20]]
    assert ci["middle_mass"] == bootstrap_interval(metrics.profile_statistics(mean)["middle_mass"], reps, p.shape[0],
                                                   bounds=(0.0, 1.0))
    assert set(ci) == {"log10_peak_to_trough", "log10_peak_to_trough_body", *metrics.PROFILE_STATISTICS}
    lo, hi = ci["valley_c"]
    assert lo <= hi


def test_score_fraction_interval_brackets_the_point():
    total = _rows(1) + 0.1
    score = 0.3 * total * np.exp(0.1 * np.random.default_rng(2).standard_normal(total.shape))
    point = metrics.score_fraction_median(total, score)
    lo, hi = score_fraction_interval(total, score, point, n_boot=100, seed=0)
    assert 0 <= lo <= point <= hi
