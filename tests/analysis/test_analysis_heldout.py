"""analysis/heldout.py (an alias kept for one release): its misfit_chi2 is stats.misfit's reduced statistic."""

import warnings

import numpy as np

from lostmid_jax._moved import MovedWarning
from lostmid_jax.stats.misfit import misfit_test

with warnings.catch_warnings():  # the old module, on purpose (it warns once: tests/test_moved.py)
    warnings.simplefilter("ignore", MovedWarning)
    from lostmid_jax.analysis.heldout import misfit_chi2


def test_misfit_chi2_is_the_reduced_misfit_test():
    rng = np.random.default_rng(0)
    q = np.array([0.4, 0.1, 0.2, 0.3])
    p = q * np.exp(rng.normal(0, 0.1, size=(6, 4)))
    p /= p.sum(1, keepdims=True)
    assert misfit_chi2(p, q) == misfit_test(p, q).reduced
    assert misfit_chi2(p, q) != misfit_chi2(p, q[::-1])
