"""Moved to :mod:`lostmid_jax.stats.agreement` (Misfit, log_misfit: :mod:`lostmid_jax.stats.misfit`); kept for one release."""

from ..stats.agreement import (LEVEL, Agreement, agreement, bin_matrix, bootstrap_interval, bootstrap_weights,
                               expansion, noise_ceiling, row_bootstrap_ci, spearman_rows, wasserstein_rows)
from ..stats.misfit import Misfit, log_misfit

__all__ = ["LEVEL", "Agreement", "Misfit", "agreement", "bin_matrix", "bootstrap_interval", "bootstrap_weights",
           "expansion", "log_misfit", "noise_ceiling", "row_bootstrap_ci", "spearman_rows", "wasserstein_rows"]
