"""Moved to :mod:`lostmid_jax.stats.heldout`; kept for one release."""

from ..stats.heldout import (MISFIT_ROWS, HeldoutScore, Split, fit_rows, heldout_score, misfit_chi2, rms_log_error,
                             split_halves)

__all__ = ["MISFIT_ROWS", "HeldoutScore", "Split", "fit_rows", "heldout_score", "misfit_chi2", "rms_log_error",
           "split_halves"]
