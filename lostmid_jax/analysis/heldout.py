"""Alias for one release: held-out scoring lives in :mod:`lostmid_jax.stats.heldout`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)


def misfit_chi2(p, q) -> float:
    """Deprecated: chi2 / dof of :func:`lostmid_jax.stats.misfit.misfit_test` (the one misfit statistic) of the
    normalized rows p [T, B] against q [B]. Until this release it was mean_b ((d_b - mean d) pbar_b / se_b)^2."""
    from ..stats.misfit import misfit_test

    return misfit_test(p, q).reduced
