"""The float64 Laguerre form of rho_H(x) stays finite and accurate near the edges (issue 18).

a (1-a)^(H-1) L^(1)_{H-1}(-z) overflowed in L and underflowed in (1-a)^(H-1)
for a -> 1, x -> 0 and large H (0 * inf = NaN). Reference: the hop form
evaluated by mpmath at 50 digits (an independent route: Poisson-binomial
probabilities times t^(k-1)/(k-1)!, no Laguerre polynomial).
"""

import math

import numpy as np
import pytest

from lostmid_jax import theory

EDGE_X = [1e-300, 1e-100, 1e-10, 0.01, 0.5, 0.999, 1.0]
RTOL = 1e-10  # measured worst case over the slow grid: 1.4e-12
TINY = 1e-300  # below this the float64 value underflows to a subnormal or 0


def _assert_matches_hops_at_50_digits(xs, depth, alpha):
    reference = [float(v) for v in theory.continuum_density(xs, depth, alpha, dps=50)]
    laguerre = theory.continuum_density(np.array(xs), depth, alpha, form="laguerre")
    assert np.all(np.isfinite(laguerre)), (depth, alpha, laguerre)
    for x, got, want in zip(xs, laguerre, reference):
        assert got == pytest.approx(want, rel=RTOL, abs=TINY), f"x={x} H={depth} a={alpha}: {got} != {want}"


@pytest.mark.parametrize("x,expected", [(0.01, 0.0), (1e-300, 2.7264547759722623e219)])
def test_issue_cases_are_finite_and_correct(x, expected):
    """The two reported NaNs: at x = 0.01 the true value (2.2e-330) is below float64's range, so 0.0."""
    value = theory.continuum_density(x, 256, 0.999, form="laguerre")
    assert math.isfinite(value)
    assert value == pytest.approx(expected, rel=RTOL, abs=TINY)
    assert value == pytest.approx(theory.continuum_density(x, 256, 0.999), rel=1e-11, abs=TINY)


@pytest.mark.parametrize("depth", [1, 2, 7, 64, 256])
@pytest.mark.parametrize("alpha", [0.1, 0.9, 0.999, 1 - 1e-9])
def test_laguerre_matches_the_hop_form_near_the_edges(depth, alpha):
    _assert_matches_hops_at_50_digits(EDGE_X, depth, alpha)


def test_scipy_values_are_kept_where_they_are_accurate():
    """Away from the edges the closed form is scipy's eval_genlaguerre, as before (bit for bit)."""
    from scipy import special

    x, depth, a = np.array([0.2, 0.5, 0.9]), 12, 0.4
    t = -np.log(x)
    expected = a * (1 - a) ** (depth - 1) * special.eval_genlaguerre(depth - 1, 1, -(a / (1 - a)) * t)
    np.testing.assert_array_equal(theory.continuum_density(x, depth, a, form="laguerre"), expected)


@pytest.mark.slow
@pytest.mark.parametrize("depth", [1, 2, 3, 5, 8, 16, 32, 64, 100, 128, 200, 256])
def test_laguerre_matches_the_hop_form_on_a_fine_grid(depth):
    xs = [1e-300, 1e-200, 1e-100, 1e-30, 1e-10, 1e-5, 1e-3, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 0.999999, 1.0]
    for alpha in [1e-6, 1e-3, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 0.999, 0.9999, 0.999999, 1 - 1e-9, 1 - 2**-40]:
        _assert_matches_hops_at_50_digits(xs, depth, alpha)
