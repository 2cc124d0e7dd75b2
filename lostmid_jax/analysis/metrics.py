"""Moved to :mod:`lostmid_jax.stats.profile_metrics` (mean_se: :func:`lostmid_jax.stats.intervals.mean_sem`); kept for one release."""

from ..stats.intervals import mean_sem as mean_se
from ..stats.profile_metrics import (PowerLawFit, positions, spearman, to_distribution, u_statistics,
                                     valley_power_law, wasserstein)

__all__ = ["PowerLawFit", "mean_se", "positions", "spearman", "to_distribution", "u_statistics",
           "valley_power_law", "wasserstein"]
