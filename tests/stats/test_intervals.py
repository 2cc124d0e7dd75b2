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


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (1, 1), (17, 40), (999, 1000)])
def test_wilson_matches_scipy(k, n):
    from scipy.stats import binomtest

    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert intervals.wilson_interval(k, n) == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert all(np.isnan(intervals.wilson_interval(0, 0)))
    with pytest.raises(ValueError, match="successes"):
        intervals.wilson_interval(3, 2)


def test_wilson_interval_holds_its_point_at_zero_and_all():
    """k = 0 and k = n: rounding used to leave the lower end a few 1e-17 above an accuracy of 0 (and the upper
    end below 1), which made the interval miss its own point and matplotlib refuse the error bar."""
    for n in range(1, 300):
        assert intervals.wilson_interval(0, n)[0] == 0.0 and intervals.wilson_interval(n, n)[1] == 1.0
        for k in (1, n // 2, n - 1):
            lo, hi = intervals.wilson_interval(k, n)
            assert 0.0 <= lo <= k / n <= hi <= 1.0


def test_t_interval_and_halfwidth_match_scipy():
    from scipy import stats

    rng = np.random.default_rng(0)
    rows = rng.normal(1.0, 2.0, (7, 3))
    lo, hi = intervals.t_interval(rows)
    for c in range(3):
        want = stats.t.interval(0.95, 6, loc=rows[:, c].mean(), scale=stats.sem(rows[:, c]))
        assert (lo[c], hi[c]) == pytest.approx(want, rel=1e-12)
        m, half = intervals.mean_halfwidth(list(rows[:, c]) + [np.nan])
        assert (m - half, m + half) == pytest.approx(want, rel=1e-12)
    np.testing.assert_allclose(intervals.sem_rows(rows), stats.sem(rows, axis=0), rtol=1e-12)
    assert np.all(np.isnan(intervals.t_interval(rows[:1])[0])) and np.all(np.isnan(intervals.sem_rows(rows[:1])))
    assert np.isnan(intervals.mean_halfwidth([2.0])[1])


def test_jackknife_interval_is_the_jackknife_of_the_mean_for_the_mean():
    """For the mean, the leave-one-out jackknife SE equals sd / sqrt(S): the t interval."""
    v = np.array([0.3, 0.9, 0.4, 0.7, 0.55])
    loo = [np.delete(v, i).mean() for i in range(v.size)]
    lo, hi = intervals.jackknife_interval(v.mean(), loo)
    want = intervals.t_interval(v[:, None])
    assert (lo, hi) == pytest.approx((float(want[0][0]), float(want[1][0])), rel=1e-12)
    assert intervals.jackknife_interval(v.mean(), loo, bounds=(0.6, 0.62)) == (0.6, 0.62)


def test_log_interval_is_the_t_interval_of_the_logs_and_never_below_zero():
    from scipy import stats

    rng = np.random.default_rng(1)
    for size in (3, 5, 30):
        v = np.exp(rng.normal(-3.0, 2.5, size))  # wide spread: a linear t interval would cross 0
        center, lo, hi = intervals.log_interval(v)
        want = stats.ttest_1samp(np.log(v), 0.0).confidence_interval(0.95)
        assert (lo, hi) == pytest.approx((np.exp(want.low), np.exp(want.high)), rel=1e-12)
        assert center == pytest.approx(stats.gmean(v), rel=1e-12)
        assert 0 < lo <= center <= hi
    center, lo, hi = intervals.log_interval([2.0, 8.0])
    assert center == pytest.approx(4.0) and np.isnan(lo) and np.isnan(hi)  # n < 3: no interval
    assert all(np.isnan(intervals.log_interval([])))
    with pytest.raises(ValueError, match="> 0"):
        intervals.log_interval([1.0, 0.0, 2.0])
