"""Moved to :mod:`lostmid_jax.stats.heldout`; kept for one release."""

from ..stats.heldout import MISFIT_ROWS, HeldoutScore, Split, fit_rows, heldout_score, rms_log_error, split_halves
from ..stats.misfit import log_misfit


def misfit_chi2(p, q) -> float:
    """Deprecated: chi2 / dof of :func:`lostmid_jax.stats.misfit.log_misfit` (the one misfit statistic) of the
    normalized rows p [T, B] against q [B]. Until this release it was mean_b ((d_b - mean d) pbar_b / se_b)^2."""
    return log_misfit(p, q).reduced


__all__ = ["MISFIT_ROWS", "HeldoutScore", "Split", "fit_rows", "heldout_score", "misfit_chi2", "rms_log_error",
           "split_halves"]
