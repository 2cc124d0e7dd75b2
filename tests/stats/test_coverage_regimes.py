"""Coverage of the agreement intervals on truths and noises unlike the ones they were tuned on (issue 27).

A measured record, not a target met: with 4-8 seeds the 95% intervals cover 0.87-1.00 (Spearman),
0.78-0.98 (W1) and 0.44-0.99 (noise ceiling) over the regimes below (200 ensembles each; L = 64; the
truth's reference is a decreasing theory-like row). docs/step0.md quotes the table; the verdict keys
on the intervals, so a reader must know they under-cover. Slow: about a minute.
"""

import numpy as np
import pytest
from stats_helpers import decreasing, noise, u_shape

from lostmid_jax.stats import profile_metrics as metrics
from lostmid_jax.stats.agreement import agreement

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("truth_name", ["decreasing+bump", "u-shape"])
@pytest.mark.parametrize("kind", ["iid-lognormal", "seed-correlated", "probe", "mixed"])
def test_interval_coverage_stays_within_its_documented_range(truth_name, kind):
    length, trials = 64, 200
    x = np.arange(1, length + 1) / length
    truth = (decreasing(length) * (1 + 0.6 * np.exp(-((x - 0.5) / 0.08) ** 2)) if truth_name == "decreasing+bump"
             else u_shape(length))
    reference = decreasing(length)
    rng = np.random.default_rng(11)
    big = truth * noise(kind, 20000, length, rng)
    mu = (big / big.sum(1, keepdims=True)).mean(0)
    true_rho, true_w1 = metrics.spearman(mu, reference), metrics.wasserstein(mu, reference / reference.sum())
    for rows in (4, 8):
        hits = np.zeros(2)
        for t in range(trials):
            ag = agreement(truth * noise(kind, rows, length, rng), reference, n_boot=500, seed=t)
            hits += (ag.spearman_ci[0] <= true_rho <= ag.spearman_ci[1],
                     ag.wasserstein_ci[0] <= true_w1 <= ag.wasserstein_ci[1])
        rho_cov, w1_cov = hits / trials
        print(f"{truth_name} {kind} S={rows}: Spearman {rho_cov:.3f}, W1 {w1_cov:.3f}")
        assert rho_cov >= 0.82 and w1_cov >= 0.72
