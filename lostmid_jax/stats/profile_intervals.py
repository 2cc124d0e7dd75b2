"""95% bootstrap intervals of statistics of a mean profile over seeds.

Shapes: S rows (seeds), L positions (1-based j, x = j / L), n bootstrap replicates.

    weights = stats.agreement.bootstrap_weights(S, n_boot, seed)        # [n, S]
    ci = mean_profile_intervals(p_rows, weights, p_mean, points, band=0.1)
    ci["log10_peak_to_trough"], ci["valley_c"], ...                    # (lo, hi)

Each replicate's mean profile is w @ p_rows (w a row of ``weights``: resampling
the S seeds with replacement); the interval is the expanded basic bootstrap of
:func:`lostmid_jax.stats.agreement.bootstrap_interval`, clipped to the
statistic's range. The peak-to-trough ratios use every replicate; the U
statistics and the valley fit (:func:`.profile_metrics.profile_statistics`,
computed one replicate at a time) the first ``loop_boot`` (LOOP_BOOT = 200).
"""

from __future__ import annotations

import math

import numpy as np

from . import profile_metrics as metrics
from .agreement import bootstrap_interval

LOOP_BOOT = 200  # bootstrap replicates of the statistics computed one replicate at a time


def mean_profile_intervals(p_rows: np.ndarray, weights: np.ndarray, p_mean: np.ndarray, points: dict, *,
                           band: float = 0.1, loop_boot: int = LOOP_BOOT) -> dict[str, tuple[float, float]]:
    """{statistic: 95% CI} of log10_peak_to_trough, log10_peak_to_trough_body (j < L) and the
    :data:`.profile_metrics.PROFILE_STATISTICS` of the mean of normalized rows p_rows [S, L].

    Args:
      p_rows: [S, L] normalized profiles (S >= 2).
      weights: [n, S] bootstrap weights (each row sums to 1).
      p_mean: [L] the mean profile (the point of the profile statistics).
      points: the point values of log10_peak_to_trough and log10_peak_to_trough_body.
      band: the U statistics' band.
      loop_boot: replicates (the first rows of ``weights``) of the statistics computed one at a time.
    """
    rows = p_rows.shape[0]
    means = weights @ p_rows  # [n, L]
    ci = {}
    for name, stat in (("log10_peak_to_trough", metrics.log10_peak_to_trough_rows),
                       ("log10_peak_to_trough_body", lambda m: metrics.log10_peak_to_trough_rows(m[:, :-1]))):
        ci[name] = bootstrap_interval(points[name], stat(means), rows, bounds=(0.0, math.inf))
    point = metrics.profile_statistics(p_mean, band)
    reps = [metrics.profile_statistics(w @ p_rows, band) for w in weights[:loop_boot]]
    for name in metrics.PROFILE_STATISTICS:
        ci[name] = bootstrap_interval(point[name], [r[name] for r in reps], rows,
                                      bounds=metrics.PROFILE_STATISTIC_BOUNDS[name])
    return ci


def score_fraction_interval(total: np.ndarray, score: np.ndarray, point: float, *, n_boot: int,
                            seed: int) -> tuple[float, float]:
    """95% CI of :func:`.profile_metrics.score_fraction_median` of norms [S, L]: ``n_boot`` resamples of
    the seeds drawn with ``numpy.random.default_rng(seed).integers``."""
    rows = total.shape[0]
    rng = np.random.default_rng(seed)
    reps = [metrics.score_fraction_median(total[i], score[i])
            for i in (rng.integers(0, rows, rows) for _ in range(n_boot))]
    return bootstrap_interval(point, reps, rows, bounds=(0.0, math.inf))


__all__ = ["LOOP_BOOT", "mean_profile_intervals", "score_fraction_interval"]
