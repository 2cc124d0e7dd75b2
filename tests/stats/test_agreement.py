"""stats.agreement on synthetic ensembles with a known truth: CI coverage, the noise ceiling, bad input.

Coverage rates measured by these tests (200 trials each, seeds fixed; printed with -s):
U-shaped truth, multiplicative log-normal noise, S = 8 rows, L = 32: Spearman CI 0.950,
W1 CI 0.945 (jackknife-t; 0.935 with the expanded basic bootstrap it replaced); additive Gaussian
noise on a Gaussian truth, S = 8, L = 64: the ceiling's CI covers the Spearman of the noiseless
truth against the ensemble mean in 0.895 of the trials (mean ceiling 0.9347 vs mean Spearman
0.9322). On U profiles with multiplicative noise the Spearman-Brown ceiling runs high by
0.005-0.02 (rank correlations attenuate faster than Pearson's; tests/stats/test_coverage_regimes.py
and lostmid_jax/stats/coverage.py record the coverage over 54 harder regimes).
"""

import math

import numpy as np
import pytest

from lostmid_jax.stats import profile_metrics as metrics
from lostmid_jax.stats.agreement import (Agreement, agreement, bin_matrix, bootstrap_weights, row_bootstrap_ci,
                                         spearman_rows, wasserstein_rows)

TRIALS = 200


def _normalized_mean(rows):
    rows = np.asarray(rows, np.float64)
    return (rows / rows.sum(1, keepdims=True)).mean(0)


def _u_ensemble(rng, rows, length, sigma=0.3):
    x = np.arange(1, length + 1) / length
    truth = np.exp(8 * (x - 0.5) ** 2)
    return truth, lambda n: truth * np.exp(sigma * rng.standard_normal((n, length)))


def test_package_attribute_is_the_function_in_any_import_order():
    import lostmid_jax.analysis as analysis
    import lostmid_jax.stats.agreement as module

    assert analysis.agreement is module.agreement is agreement and analysis.Agreement is Agreement


def test_batched_metrics_equal_the_metrics_module():
    rng = np.random.default_rng(0)
    a = rng.random((6, 17))
    a[0, 3:7] = a[0, 3]  # ties get average ranks in both
    b = rng.random(17)
    np.testing.assert_allclose(spearman_rows(a, b), [metrics.spearman(r, b) for r in a], rtol=1e-12)
    np.testing.assert_allclose(wasserstein_rows(a, b), [metrics.wasserstein(r, b) for r in a], rtol=1e-10)
    assert np.isnan(spearman_rows(np.ones((1, 5)), np.arange(5.0)))[0]


def test_point_estimates_are_the_metrics_of_the_mean():
    rng = np.random.default_rng(1)
    rows, ref = rng.random((5, 40)) + 0.1, rng.random(40) + 0.1
    ag = agreement(rows, ref, n_boot=50)
    mean = _normalized_mean(rows)
    assert ag.spearman == pytest.approx(metrics.spearman(mean, ref), rel=1e-12)
    assert ag.wasserstein == pytest.approx(metrics.wasserstein(mean, ref), rel=1e-12)
    assert (ag.rows, ag.bins) == (5, 40)
    assert ag.spearman_ci[0] <= ag.spearman_ci[1] and ag.wasserstein_ci[0] <= ag.wasserstein_ci[1]
    cols = ag.columns("fit_")
    assert cols["fit_spearman"] == ag.spearman and cols["fit_ceiling_hi"] == ag.ceiling_ci[1]
    # scale-free: each row and the reference are normalized first
    scaled = agreement(rows * np.arange(1, 6)[:, None], 7 * ref, n_boot=50)
    assert scaled.spearman == pytest.approx(ag.spearman) and scaled.wasserstein == pytest.approx(ag.wasserstein)
    # same seed, same answer
    assert agreement(rows, ref, n_boot=50) == ag


def test_bins_sum_positions_into_equal_bins_of_x():
    m = bin_matrix(10, 3)
    assert m.sum(1).tolist() == [1.0] * 10  # every position in one bin
    x = np.arange(1, 11) / 10
    for b in range(3):  # bin b + 1 holds the x in (b/3, (b+1)/3]
        np.testing.assert_array_equal(m[:, b] == 1, (x > b / 3) & (x <= (b + 1) / 3))
    rng = np.random.default_rng(2)
    rows, ref = rng.random((4, 12)) + 0.1, rng.random(12) + 0.1
    binned = agreement(rows, ref, bins=4, n_boot=20)
    mean = _normalized_mean(rows).reshape(4, 3).sum(1)
    q = (ref / ref.sum()).reshape(4, 3).sum(1)
    assert binned.bins == 4 and binned.spearman == pytest.approx(metrics.spearman(mean, q), rel=1e-12)
    assert binned.wasserstein == pytest.approx(metrics.wasserstein(mean, q), rel=1e-12)
    assert agreement(rows, ref, bins=12, n_boot=20) == agreement(rows, ref, n_boot=20)
    one = agreement(rows, ref, bins=1, n_boot=20)
    assert math.isnan(one.spearman) and one.wasserstein == 0.0


def test_paired_reference_resamples_the_same_rows():
    rng = np.random.default_rng(3)
    on = rng.random((6, 30)) + 0.5
    ag = agreement(on, on, n_boot=200)  # a paired ensemble against itself: every replicate agrees exactly
    assert ag.spearman == pytest.approx(1.0) and ag.spearman_ci == pytest.approx((1.0, 1.0))
    assert ag.wasserstein_ci[1] < 1e-12
    shuffled = agreement(on, on[::-1], n_boot=200)  # the same mean, but row s no longer pairs with row s
    assert shuffled.spearman == pytest.approx(1.0) and shuffled.wasserstein_ci[1] > 1e-4


def test_w1_interval_is_the_jackknife_t_around_the_bias_corrected_point():
    """W1: leave-one-out W1 by an explicit loop over metrics.wasserstein, S W - (S-1) mean W_(i), and the
    interval that point +- t(0.975, S-1) SE_jack; the Spearman's bias-corrected point is 2 T - median T*,
    the centre of its basic interval (the widening k scales both ends about it)."""
    from scipy import stats

    rng = np.random.default_rng(8)
    rows, ref = rng.random((6, 30)) + 0.2, rng.random(30) + 0.2
    ag = agreement(rows, ref, n_boot=300, seed=3)
    p = rows / rows.sum(1, keepdims=True)
    loo = np.array([metrics.wasserstein(np.delete(p, i, 0).mean(0), ref) for i in range(6)])
    bc = 6 * ag.wasserstein - 5 * loo.mean()
    se = np.sqrt(5 / 6 * np.sum((loo - loo.mean()) ** 2))
    assert ag.wasserstein_bc == pytest.approx(max(bc, 0.0), rel=1e-10)
    half = stats.t.ppf(0.975, 5) * se
    assert ag.wasserstein_ci == pytest.approx((max(ag.wasserstein_bc - half, 0.0), ag.wasserstein_bc + half), rel=1e-10)
    weights = bootstrap_weights(6, 300, 3)  # the replicates agreement draws, recomputed one by one
    reps = [metrics.spearman(w @ p, ref) for w in weights]
    assert ag.spearman_bc == pytest.approx(2 * ag.spearman - np.median(reps), rel=1e-10)
    assert math.isnan(agreement(rows, ref, n_boot=0).wasserstein_bc)


def _coverage(trials, make_rows, ref, truth_rho, truth_w1, **kwargs):
    hits = np.zeros(2)
    for t in range(trials):
        ag = agreement(make_rows(), ref, seed=t, **kwargs)
        hits += [ag.spearman_ci[0] <= truth_rho <= ag.spearman_ci[1],
                 ag.wasserstein_ci[0] <= truth_w1 <= ag.wasserstein_ci[1]]
    return hits / trials


def test_bootstrap_ci_covers_the_truth_at_the_nominal_rate():
    """200 ensembles of S = 8 noisy U profiles vs a reference that differs from the truth: the 95% CIs
    cover the noiseless Spearman and W1 (those of E[p], from 1e5 rows) at close to 0.95."""
    rng = np.random.default_rng(4)
    length = 32
    x = np.arange(1, length + 1) / length
    _, draw = _u_ensemble(rng, 8, length)
    ref = np.exp(7 * (x - 0.45) ** 2) + 0.3 * np.sin(20 * x) ** 2
    expected = _normalized_mean(draw(100_000))
    rho, w1 = metrics.spearman(expected, ref), metrics.wasserstein(expected, ref)
    assert 0.5 < rho < 0.97 and w1 > 0.02  # an informative regime: neither perfect nor unrelated
    rates = _coverage(TRIALS, lambda: draw(8), ref, rho, w1, n_boot=400, splits=2)
    print(f"coverage over {TRIALS} trials: Spearman {rates[0]:.3f}, W1 {rates[1]:.3f}")
    assert 0.88 <= rates[0] <= 0.99 and 0.88 <= rates[1] <= 0.99


def test_the_ci_corrects_the_attenuation_of_the_point_estimate():
    """Noise lowers the Spearman of an ensemble mean against the truth (attenuation): the basic
    bootstrap moves the CI up from the point estimate, toward the noiseless value 1."""
    rng = np.random.default_rng(5)
    _, draw = _u_ensemble(rng, 4, 32, sigma=0.6)
    ref = _normalized_mean(draw(100_000))
    results = [agreement(draw(6), ref, n_boot=200, splits=2, seed=t) for t in range(40)]
    points = np.mean([a.spearman for a in results])
    middles = np.mean([sum(a.spearman_ci) / 2 for a in results])
    assert points < 0.97 and middles > points + 0.5 * (1 - points) * 0.5


def test_ceiling_matches_the_truth_within_its_ci():
    """Gaussian truth over positions, additive noise: the ceiling's 95% CI covers the Spearman of the
    noiseless truth against each ensemble's mean at close to the nominal rate, and the mean ceiling
    equals the mean of that Spearman."""
    rng = np.random.default_rng(6)
    length, rows = 64, 8
    truth = 10 + rng.standard_normal(length)
    expected = _normalized_mean(truth + 1.0 * rng.standard_normal((100_000, length)))
    hits, ceilings, actual = 0, [], []
    for t in range(TRIALS):
        ens = truth + 1.0 * rng.standard_normal((rows, length))
        ag = agreement(ens, truth, n_boot=0, seed=t, splits=20)
        real = metrics.spearman(_normalized_mean(ens), expected)
        hits += ag.ceiling_ci[0] <= real <= ag.ceiling_ci[1]
        ceilings.append(ag.ceiling)
        actual.append(real)
    print(f"ceiling CI covers the truth's Spearman in {hits / TRIALS:.3f} of {TRIALS} trials; "
          f"mean ceiling {np.mean(ceilings):.4f} vs mean Spearman(truth, mean) {np.mean(actual):.4f}")
    assert 0.85 <= hits / TRIALS <= 1.0
    assert np.mean(ceilings) == pytest.approx(np.mean(actual), abs=0.01)


def test_ceiling_is_one_without_noise_and_low_with_pure_noise():
    rng = np.random.default_rng(7)
    base = rng.random(20) + 0.5
    clean = agreement(np.tile(base, (6, 1)), base, n_boot=0)
    assert clean.ceiling == pytest.approx(1.0) and clean.reliability == pytest.approx(1.0)
    noise = agreement(rng.random((16, 200)) + 0.5, base.repeat(10), n_boot=0)
    assert noise.ceiling < 0.4 and noise.ceiling_ci[0] <= noise.ceiling <= noise.ceiling_ci[1]
    two = agreement(rng.random((2, 20)) + 0.5, base, n_boot=10)
    assert math.isfinite(two.ceiling) and all(math.isnan(v) for v in two.ceiling_ci)  # no jackknife at S = 2


def test_row_bootstrap_ci_of_a_mean_covers_it():
    rng = np.random.default_rng(8)
    hits = 0
    for t in range(100):
        rows = 1.0 + rng.standard_normal((8, 3))
        lo, hi = row_bootstrap_ci(rows, lambda m: float(m[0]), n_boot=200, seed=t)
        hits += lo <= 1.0 <= hi
    assert 0.85 <= hits / 100 <= 1.0
    paired = row_bootstrap_ci((rows, rows), lambda ms: float(ms[0][0] - ms[1][0]), n_boot=50)
    assert paired == (0.0, 0.0)


@pytest.mark.parametrize(
    "profiles,reference,kwargs,message",
    [
        (np.ones(5), np.ones(5), {}, "profiles must be 2-D"),
        (np.ones((2, 2, 5)), np.ones(5), {}, "profiles must be 2-D"),
        (np.ones((1, 5)), np.ones(5), {}, "profiles must have >= 2 rows"),
        (np.ones((3, 5)), np.ones(4), {}, "reference must have shape"),
        (np.ones((3, 5)), np.ones((2, 5)), {}, "reference must have shape"),
        (np.ones((3, 5)), np.ones(5), {"bins": 0}, "bins"),
        (np.ones((3, 5)), np.ones(5), {"bins": 6}, "bins"),
        (np.array([[1.0, np.nan], [1.0, 1.0]]), np.ones(2), {}, "profiles must be finite"),
        (np.array([[1.0, np.inf], [1.0, 1.0]]), np.ones(2), {}, "profiles must be finite"),
        (np.ones((2, 2)), np.array([1.0, np.nan]), {}, "reference must be finite"),
        (np.array([[1.0, -1.0], [1.0, 1.0]]), np.ones(2), {}, "profiles must be >= 0"),
        (np.array([[0.0, 0.0], [1.0, 1.0]]), np.ones(2), {}, "profiles must have a positive sum"),
        (np.ones((3, 5)), np.ones(5), {"n_boot": -1}, "n_boot"),
    ],
)
def test_bad_input_names_the_argument(profiles, reference, kwargs, message):
    with pytest.raises(ValueError, match=message):
        agreement(profiles, reference, **kwargs)


def test_one_row_without_a_ci_is_allowed():
    ag = agreement(np.array([[1.0, 2.0, 3.0]]), np.array([1.0, 2.0, 4.0]), n_boot=0)
    assert ag.spearman == pytest.approx(1.0) and math.isnan(ag.spearman_ci[0]) and math.isnan(ag.ceiling)
