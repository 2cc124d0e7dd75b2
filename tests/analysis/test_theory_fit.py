"""analysis/theory_fit.py: theory rows of a schedule and the constant a fitted back from a profile."""

import numpy as np
import pytest

from lostmid_jax import theory
from lostmid_jax.analysis.theory_fit import fit_constant_alpha, theory_row
from lostmid_jax.theory.cesaro import mixing_matrix


def test_theory_row_is_the_last_row_of_the_mixing_product():
    product = np.linalg.matrix_power(mixing_matrix(6, 0.4), 3)
    assert theory_row(6, [0.4, 0.4, 0.4]) == pytest.approx(product[-1], rel=1e-12)
    assert theory_row(6, [1.5]) == pytest.approx(theory_row(6, [1.0]), rel=1e-15)  # clipped to [0, 1]


@pytest.mark.parametrize("objective", ["log_lsq", "wasserstein"])
@pytest.mark.parametrize("alpha,prior", [(0.3, theory.Causal()), (0.8, theory.Causal()), (0.6, theory.SlidingWindow(8))])
def test_the_fit_recovers_the_alpha_of_a_theory_row(alpha, prior, objective):
    norms = 7.0 * theory_row(32, [alpha] * 4, prior=prior)  # any scale
    assert fit_constant_alpha(norms, 4, objective=objective, prior=prior) == pytest.approx(alpha, abs=2e-3)


@pytest.mark.parametrize("norms,kwargs,match", [(np.array([1.0, 0.0, 0.0]), {}, "two positive"),
                                               (np.ones((2, 2)), {}, "1-D"), (np.ones(4), dict(depth=0), "depth"),
                                               (np.ones(4), dict(objective="l1"), "objective")])
def test_bad_inputs(norms, kwargs, match):
    with pytest.raises(ValueError, match=match):
        fit_constant_alpha(norms, **{"depth": 2, **kwargs})
