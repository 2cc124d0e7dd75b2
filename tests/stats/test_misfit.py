"""stats.misfit: the one misfit test, calibrated by sign flips of whole seeds.

False-alarm rates at p < 0.05 (200 ensembles each, L = 64, the right reference E[p]):
tests/stats/test_misfit.py::test_false_alarm_rate_under_each_noise prints them;
benchmarks/misfit_false_alarm.py measures every truth, noise and S with 400 ensembles (docs/step0.md).
"""

import itertools
import math

import numpy as np
import pytest

from lostmid_jax.stats.misfit import MISFIT_BINS, Misfit, log_misfit, misfit_columns, misfit_test

from stats_helpers import KINDS, decreasing, expected_profile, noise

TRIALS = 200


@pytest.mark.parametrize("kind", KINDS)
def test_false_alarm_rate_under_each_noise(kind):
    """The right reference: p < 0.05 in 0.05 +- 0.035 of 200 ensembles of 8 seeds (binomial 99.9% band
    around 0.05 is about +-0.04), whatever the noise."""
    rng = np.random.default_rng(sum(map(ord, kind)))
    truth = decreasing(64)
    reference = expected_profile(truth, kind, rng)
    rate = np.mean([misfit_test(truth * noise(kind, 8, 64, rng), reference).p_value < 0.05 for _ in range(TRIALS)])
    print(f"{kind}: false-alarm rate {rate:.3f}")
    assert 0.015 <= rate <= 0.09


def test_detects_a_wrong_reference_and_a_gross_misfit():
    rng = np.random.default_rng(1)
    truth = decreasing(64)
    x = np.arange(1, 65) / 64
    reference = expected_profile(truth, "iid-lognormal", rng)
    tilted = reference * np.exp(0.4 * (x - 0.5))
    hits = [misfit_test(truth * noise("iid-lognormal", 8, 64, rng), tilted).p_value < 0.05 for _ in range(50)]
    assert np.mean(hits) > 0.8
    gross = misfit_test(truth * noise("iid-lognormal", 8, 64, rng), np.ones(64))
    assert gross.p_value == pytest.approx(1 / 128) and gross.reduced > 5  # every other pattern scores lower


def test_exact_enumeration_equals_brute_force():
    rng = np.random.default_rng(2)
    rows = np.exp(0.3 * rng.standard_normal((5, 16)))
    q = np.linspace(1.0, 2.0, 16)
    m = misfit_test(rows, q)
    d = (rows / rows.sum(1, keepdims=True)) / (q / q.sum()) - 1
    m2 = (d ** 2).mean(0)
    stat = lambda e: 5 * (((np.asarray(e) @ d) / 5) ** 2 / m2).sum()  # noqa: E731
    all_t = [stat(e) for e in itertools.product((1, -1), repeat=5)]
    assert m.chi2 == pytest.approx(stat([1] * 5))
    assert m.p_value == pytest.approx(np.mean(np.array(all_t) >= stat([1] * 5) * (1 - 1e-12)))
    assert m.min_p == pytest.approx(2 / 32) and not m.can_reject(0.05) and m.dof == 15


def test_coarsens_to_at_most_misfit_bins_and_pairs_rows():
    rng = np.random.default_rng(4)
    truth = decreasing(64)
    rows = truth * noise("iid-lognormal", 8, 64, rng)
    m = misfit_test(rows, truth)
    assert m.bins == MISFIT_BINS and m.dof == MISFIT_BINS - 1
    assert misfit_test(rows, truth, bins=8).bins == 8
    paired = misfit_test(rows, rows * noise("iid-lognormal", 8, 64, rng))  # same seeds, noise only
    assert paired.p_value > 0.001
    assert misfit_test(rows, truth, fitted=1).dof == MISFIT_BINS - 2
    with pytest.raises(ValueError, match="profiles must have >= 2 rows"):
        misfit_test(np.ones((1, 4)), np.ones(4))
    with pytest.raises(ValueError, match="flips"):
        misfit_test(rows, truth, flips=0)


def test_sampled_patterns_for_many_seeds():
    rng = np.random.default_rng(5)
    truth = decreasing(32)
    m = misfit_test(truth * noise("probe", 20, 32, rng), np.ones(32), flips=999)
    assert m.p_value == pytest.approx(1 / 1000) and m.min_p == pytest.approx(1 / 1000)


def test_one_set_of_columns():
    m = Misfit(30.0, 10, 0.001)
    assert m.columns() == {"chi2_dof": 3.0, "dof": 10, "p_misfit": 0.001}
    assert list(m.columns("_fitted")) == ["chi2_dof_fitted", "dof_fitted", "p_misfit_fitted"]
    none = misfit_columns(None)
    assert math.isnan(none["chi2_dof"]) and none["dof"] is None and math.isnan(none["p_misfit"])


def test_old_names_are_the_one_test():
    from lostmid_jax.analysis.heldout import misfit_chi2

    rng = np.random.default_rng(3)
    rows = np.exp(0.1 * rng.standard_normal((8, 20)))
    q = np.ones(20)
    assert log_misfit is misfit_test
    assert misfit_chi2(rows, q) == misfit_test(rows, q).reduced
