"""theory.dead_zone: the public dead-zone statistics (moved from experiments.counterfactuals; the old name warns)."""

import math

import numpy as np
import pytest

from lostmid_jax import theory


def test_counts_positions_below_the_threshold_by_hand():
    L = 10
    w = np.full(L, 1.0 / L)  # uniform: density 1
    w[3:6] = 0.001 / L  # j = 4, 5, 6: density 1e-3 < 1e-2
    w[6] = 0.0  # j = 7: no path
    w[-1] = 0.5  # the recency delta is never counted
    with np.errstate(divide="ignore"):
        out = theory.dead_zone(np.log(w))
    assert out["dead_fraction"] == pytest.approx(4 / 9)
    assert out["zero_fraction"] == pytest.approx(1 / 9)
    assert (out["dead_x_min"], out["dead_x_max"]) == (0.4, 0.7)
    assert out["dead_x_mean"] == pytest.approx(np.mean([0.4, 0.5, 0.6, 0.7]))
    assert out["log10_min_density"] == -math.inf
    assert math.isnan(theory.dead_zone(np.log(np.full(L, 1 / L)))["dead_x_min"])


@pytest.mark.parametrize("row, below, message", [(np.zeros((2, 2)), 0.01, "log_row"), ([], 0.01, "log_row"),
                                                 ([0.0, np.nan], 0.01, "log_row"), ([0.0, 0.0], 1.5, "dead_below")])
def test_refuses_bad_input(row, below, message):
    with pytest.raises(ValueError, match=message):
        theory.dead_zone(row, below)
