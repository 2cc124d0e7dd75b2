"""analysis/heldout.py (kept for one release): its misfit_chi2 is stats.misfit's reduced statistic."""

import numpy as np

from lostmid_jax.analysis.heldout import misfit_chi2
from lostmid_jax.stats.misfit import log_misfit


def test_misfit_chi2_is_the_reduced_log_misfit():
    rng = np.random.default_rng(0)
    q = np.array([0.4, 0.1, 0.2, 0.3])
    p = q * np.exp(rng.normal(0, 0.1, size=(6, 4)))
    p /= p.sum(1, keepdims=True)
    assert misfit_chi2(p, q) == log_misfit(p, q).reduced
    assert misfit_chi2(p, q) != misfit_chi2(p, q[::-1])
