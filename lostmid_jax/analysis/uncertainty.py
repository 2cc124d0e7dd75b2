"""Moved to :mod:`lostmid_jax.stats.agreement`; kept for one release."""

from ..stats.agreement import (LEVEL, Agreement, Misfit, agreement, bin_matrix, bootstrap_interval,
                               bootstrap_weights, expansion, log_misfit, noise_ceiling, row_bootstrap_ci,
                               spearman_rows, wasserstein_rows)

__all__ = ["LEVEL", "Agreement", "Misfit", "agreement", "bin_matrix", "bootstrap_interval", "bootstrap_weights",
           "expansion", "log_misfit", "noise_ceiling", "row_bootstrap_ci", "spearman_rows", "wasserstein_rows"]
