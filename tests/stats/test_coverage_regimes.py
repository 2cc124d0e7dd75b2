"""Coverage of the intervals agreement() returns, on truths and noises unlike the ones they were tuned on.

A measured record, not a target met: for each truth (decreasing with a middle bump, U, nearly flat with a
recency spike), noise (the nine kinds of stats_helpers.ALL_KINDS) and S in {4, 8, 16}, 200 ensembles (L = 64,
reference the decreasing theory-like row) check the Spearman, W1 and noise-ceiling intervals of
:func:`lostmid_jax.stats.agreement.agreement` against the true values (those of
benchmarks/interval_coverage.py: the metrics of E[p]; for the ceiling E[Spearman(S-row mean, E[p])]). Each
coverage must lie in the range lostmid_jax.stats.coverage.TABLE records for its regime at that S (measured
by the benchmark with its own bootstrap draws), widened by 0.06 for the binomial noise of two independent
200-trial rates. docs/step0.md quotes the table; verdicts append its caveat where the mean coverage is below
0.93 or a cell below 0.90. Slow: about 8 CPU-minutes.
"""

import numpy as np
import pytest
from stats_helpers import ALL_KINDS, TRUTHS, decreasing, noise, truth_profile

from lostmid_jax.stats import profile_metrics as metrics
from lostmid_jax.stats.agreement import agreement, spearman_rows
from lostmid_jax.stats.coverage import measured

pytestmark = pytest.mark.slow
LENGTH, TRIALS, SLACK = 64, 200, 0.06


def _normalized(rows):
    return rows / rows.sum(1, keepdims=True)


@pytest.mark.parametrize("truth_name", TRUTHS)
@pytest.mark.parametrize("kind", ALL_KINDS)
def test_interval_coverage_stays_within_its_recorded_range(truth_name, kind):
    truth, reference = truth_profile(truth_name, LENGTH), decreasing(LENGTH)
    rng = np.random.default_rng(11)
    mu = np.mean([_normalized(truth * noise(kind, 20_000, LENGTH, rng)).mean(0) for _ in range(10)], axis=0)
    true_rho, true_w1 = metrics.spearman(mu, reference), metrics.wasserstein(mu, reference / reference.sum())
    for rows in (4, 8, 16):
        means = _normalized(truth * noise(kind, 2000 * rows, LENGTH, rng)).reshape(2000, rows, LENGTH).mean(1)
        true_ceiling = float(np.mean(spearman_rows(means, mu)))
        hits = np.zeros(3)
        for t in range(TRIALS):
            ag = agreement(truth * noise(kind, rows, LENGTH, rng), reference, n_boot=500, seed=t)
            hits += (ag.spearman_ci[0] <= true_rho <= ag.spearman_ci[1],
                     ag.wasserstein_ci[0] <= true_w1 <= ag.wasserstein_ci[1],
                     ag.ceiling_ci[0] <= true_ceiling <= ag.ceiling_ci[1])
        rates = hits / TRIALS
        print(f"{truth_name} {kind} S={rows}: Spearman {rates[0]:.3f}, W1 {rates[1]:.3f}, ceiling {rates[2]:.3f}")
        for rate, metric in zip(rates, ("spearman", "wasserstein", "ceiling")):
            row = measured(metric, rows, value=true_w1, ceiling=true_ceiling)
            assert row.rows == rows and row.low - SLACK <= rate <= row.high + SLACK, (metric, rate, row)
