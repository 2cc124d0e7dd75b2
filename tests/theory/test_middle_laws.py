"""theory/middle_laws.py: the factorial law in closed form, and the asymptotic law against the Laguerre form."""

import math

import pytest
from scipy import special

from lostmid_jax.theory.middle_laws import log_factorial_law, log_geometric_law


@pytest.mark.parametrize("depth,x", [(1, 0.5), (2, 0.5), (5, 0.5), (12, 0.25), (30, 0.9)])
def test_factorial_law_is_its_closed_form(depth, x):
    expected = math.log(1 / x) ** (depth - 1) / math.factorial(depth - 1)
    assert math.exp(log_factorial_law(depth, x)) == pytest.approx(expected, rel=1e-12)


def test_the_factorial_dead_zone_of_the_paper():
    assert math.exp(log_factorial_law(4)) == pytest.approx(math.log(2) ** 3 / 6, rel=1e-14)


@pytest.mark.parametrize("alpha,x", [(0.5, 0.5), (0.3, 0.5), (0.7, 0.25)])
def test_geometric_law_approaches_the_laguerre_form(alpha, x):
    """rho_H(x) = a (1-a)^(H-1) L^(1)_(H-1)(-z), z = a/(1-a) ln(1/x); the asymptotic's relative error shrinks
    like 1 / sqrt(H)."""
    z = alpha / (1 - alpha) * math.log(1 / x)

    def log_exact(depth):
        return (math.log(alpha) + (depth - 1) * math.log1p(-alpha)
                + math.log(special.eval_genlaguerre(depth - 1, 1, -z)))

    errors = [abs(log_geometric_law(depth, alpha, x) - log_exact(depth)) for depth in (50, 200, 800)]
    assert errors[0] > errors[1] > errors[2] and errors[2] < 0.02


@pytest.mark.parametrize("call,name", [
    (lambda: log_factorial_law(0), "depth"), (lambda: log_factorial_law(3, 1.0), "x"),
    (lambda: log_geometric_law(1, 0.5), "depth must be >= 2"), (lambda: log_geometric_law(5, 1.0), "alpha"),
    (lambda: log_geometric_law(2**54, 0.5), "2\\*\\*53"),
])
def test_bad_arguments(call, name):
    with pytest.raises(ValueError, match=name):
        call()
