"""stats.paired: the paired difference, its bootstrap interval's coverage on synthetic data, the verdict."""

import numpy as np
import pytest

from lostmid_jax.stats.paired import PairedDifference, paired_difference


def _middle_vs_ends(rng, units):
    """Synthetic probe outcomes: the middle answer right with p = 0.55, each end with p = 0.8, correlated
    through a per-unit ease (a shared uniform draw); the true mean of middle - mean(ends) is -0.25."""
    ease = rng.random(units)
    middle = ease < 0.55
    first = np.where(rng.random(units) < 0.7, ease < 0.8, rng.random(units) < 0.8)  # P = 0.8 either way
    last = np.where(rng.random(units) < 0.7, ease < 0.8, rng.random(units) < 0.8)
    return middle.astype(float), (first.astype(float) + last.astype(float)) / 2


def test_coverage_of_paired_interval_on_known_difference():
    rng = np.random.default_rng(12345)
    trials, units, truth = 1000, 80, 0.55 - 0.8
    covered = 0
    for t in range(trials):
        a, b = _middle_vs_ends(rng, units)
        d = paired_difference(a, b, n_boot=1000, seed=t)
        covered += d.lo <= truth <= d.hi
    rate = covered / trials
    assert 0.93 <= rate <= 0.97, rate


def test_pairing_narrows_the_interval_against_unpaired_noise():
    rng = np.random.default_rng(0)
    shared = rng.normal(0, 5, 200)  # a large per-unit effect common to both arms
    a, b = shared + 0.3 + rng.normal(0, 0.1, 200), shared + rng.normal(0, 0.1, 200)
    d = paired_difference(a, b)
    assert d.mean == pytest.approx(np.mean(a - b)) and d.lo > 0.25 and d.hi < 0.35 and d.units == 200
    assert d.verdict("middle", "ends") == "middle better than ends"
    assert d.verdict("loss", "base", higher_is_better=False) == "loss worse than base"


def test_verdicts_and_non_finite_units():
    assert PairedDifference(mean=-0.2, lo=-0.3, hi=-0.1, units=9).verdict("middle", "ends") == "middle worse than ends"
    assert PairedDifference(mean=0.0, lo=-0.1, hi=0.1, units=9).verdict() == "no difference beyond noise"
    d = paired_difference([1.0, 0.0, np.nan, 1.0], [0.0, 0.0, 1.0, 1.0])
    assert d.units == 3 and d.dropped == 1 and d.mean == pytest.approx(1 / 3)
    same = paired_difference([1.0, 1.0], [1.0, 1.0])
    assert (same.lo, same.hi) == (0.0, 0.0)


@pytest.mark.parametrize("a,b,match", [([1.0, 2.0], [1.0], "same length"), ([[1.0]], [[1.0]], "1-D"),
                                       ([1.0, np.nan], [1.0, 2.0], ">= 2 paired")])
def test_bad_input(a, b, match):
    with pytest.raises(ValueError, match=match):
        paired_difference(a, b)
