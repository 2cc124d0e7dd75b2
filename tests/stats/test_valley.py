"""stats.valley: the power-law fit with a bootstrap CI on alpha, and the rule for when the law does not apply."""

import numpy as np
import pytest

from lostmid_jax import theory
from lostmid_jax.stats import valley
from lostmid_jax.stats.profile_metrics import valley_power_law

L = 400
J = np.arange(1, L + 1)
DIST = np.maximum(np.abs(J - L / 2), 1.0)


def _law(left_exp, right_exp=None):
    right_exp = left_exp if right_exp is None else right_exp
    return np.where(J < L / 2, DIST ** left_exp, DIST ** right_exp)


def test_exact_valley_is_described_and_the_ci_covers_alpha():
    rng = np.random.default_rng(0)
    rows = _law(1.5) * np.exp(rng.normal(0, 0.3, size=(30, L)))  # multiplicative noise per example
    v = valley.valley_fit(rows, n_boot=500)
    assert v.describes and v.reason == "" and v.rows == 30
    assert v.alpha == pytest.approx(-1.5, abs=0.05) and v.r2 > 0.95
    assert v.alpha_lo < v.alpha < v.alpha_hi and v.alpha_hi - v.alpha_lo < 0.2
    # the point estimate is the plain fit of the mean of the normalized rows (an independent call)
    mean = (rows / rows.sum(1, keepdims=True)).mean(0)
    assert v.alpha == pytest.approx(valley_power_law(mean).c, abs=1e-12)
    assert v.u.valley_x == pytest.approx(0.5, abs=0.01)


@pytest.mark.slow  # 8 s: 60 ensembles x 300 refits
def test_bootstrap_ci_coverage_over_datasets():
    """Over 60 independent noisy ensembles the 95% CI on alpha covers the true -1.0 in 50..60 of them
    (binomial(60, 0.95) puts 95% of its mass on 54..60; 50 leaves room for the expanded bootstrap's bias;
    measured: 57)."""
    rng = np.random.default_rng(1)
    covered = 0
    for t in range(60):
        rows = _law(1.0) * np.exp(rng.normal(0, 0.5, size=(12, L)))
        v = valley.valley_fit(rows, n_boot=300, seed=t)
        covered += v.alpha_lo <= -1.0 <= v.alpha_hi
    assert covered >= 50, covered


def test_monotone_profile_is_not_a_valley():
    step0 = theory.influence_row(L, 4, 0.5)  # the Step-0 causal row: falls from the first token
    v = valley.valley_fit(step0)
    assert not v.describes and "opposite" in v.reason
    assert v.left.c * v.right.c < 0 and np.isnan(v.alpha_lo)
    decay = np.exp(-3 * J / L)
    assert "opposite" in valley.valley_fit(decay).reason


def test_flat_lopsided_and_uneven_profiles_are_refused():
    assert "flat" in valley.valley_fit(np.ones(L)).reason
    assert "flat" in valley.valley_fit(theory.influence_row(L, 1, 1.0)).reason  # uniform causal: 1/L each
    lop = valley.valley_fit(_law(1.0, 2.5))
    assert not lop.describes and "disagree" in lop.reason
    uneven = valley.valley_fit(np.where(J < L / 2, 10.0, 1.0) * _law(1.0))  # same exponent, arms 10x apart
    assert uneven.left.c == pytest.approx(uneven.right.c) and not uneven.describes and "R^2" in uneven.reason
    noisy = valley.valley_fit(1 + 0.05 * np.random.default_rng(2).random(L))
    assert not noisy.describes


def test_rule_thresholds_by_hand():
    fit = lambda c, r2=1.0: type("F", (), dict(c=c, r2=r2))()  # noqa: E731
    assert valley.power_law_rule(fit(-1.0), fit(-1.0), fit(-1.5)) == (True, "")  # gap 0.5 / 1.5 = 0.33
    assert not valley.power_law_rule(fit(-1.0), fit(-1.0), fit(-2.1))[0]         # gap 1.1 / 2.1 = 0.52
    assert not valley.power_law_rule(fit(-1.0, 0.79), fit(-1.0), fit(-1.0))[0]
    one_flat = valley.power_law_rule(fit(-1.0), fit(-0.04), fit(-0.6))             # an arm flatter than 0.05
    assert not one_flat[0] and "one arm is flat" in one_flat[1]
    assert not valley.power_law_rule(fit(-1.0), fit(1.0), fit(-1.0))[0]


@pytest.mark.parametrize("rows,match", [(np.ones((2, 3, 4)), "profiles"), (-np.ones(50), "profiles"),
                                        (np.zeros((2, 50)), "profiles")])
def test_bad_input(rows, match):
    with pytest.raises(ValueError, match=match):
        valley.valley_fit(rows)


def test_valley_depth_by_hand_and_depth_ratio():
    length = 20  # x = 0.05..1; ends: x <= 0.1 (j = 1, 2) and x >= 0.9 with j < L (j = 18, 19); centre |x - .5| < .1
    p = np.ones(length)
    p[[0, 1, 17, 18]] = 4.0
    p[-1] = 100.0  # the recency delta is left out
    assert valley.valley_depth(p) == pytest.approx(np.log(4.0))
    assert valley.valley_depth(np.ones(length)) == pytest.approx(0.0)
    rng = np.random.default_rng(0)
    deep = np.stack([p * np.exp(rng.normal(0, 0.05, length)) for _ in range(8)])
    half = np.where(p == 4.0, 2.0, p)  # ends twice the centre: V = ln 2, half of ln 4
    shallow = np.stack([half * np.exp(rng.normal(0, 0.05, length)) for _ in range(8)])
    r, lo, hi = valley.depth_ratio(shallow, deep, n_boot=300)
    assert r == pytest.approx(0.5, abs=0.05) and lo < r < hi and hi - lo < 0.2
    r1, lo1, hi1 = valley.depth_ratio(half, deep, n_boot=300)  # one profile against rows
    assert r1 == pytest.approx(0.5, abs=0.03) and lo1 <= r1 <= hi1
    assert all(np.isnan(valley.depth_ratio(deep, np.ones((8, length)))))  # no valley to compare with
