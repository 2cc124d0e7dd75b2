"""masks/alibi_slopes.py against the ALiBi paper's reference recipe, written here from its description."""

import math
from fractions import Fraction

import pytest

from lostmid_jax.masks.alibi_slopes import float_slopes, slope_exponents


def _reference(n: int) -> list[float]:
    """The published recipe: for a power of two n, start = 2^(-8/n) and slopes start^1..start^n; otherwise the
    closest lower power of two's slopes, then every other slope of twice that many heads."""
    def power_of_two(k):
        start = 2 ** (-(2 ** -(math.log2(k) - 3)))
        return [start * start ** i for i in range(k)]
    if math.log2(n).is_integer():
        return power_of_two(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_two(closest) + _reference(2 * closest)[0::2][:n - closest]


@pytest.mark.parametrize("heads", [1, 2, 3, 5, 6, 8, 12, 16, 20, 32])
def test_alibi_rule_equals_the_reference_recipe(heads):
    assert float_slopes(heads) == pytest.approx(_reference(heads), rel=1e-12)


def test_exponents_are_exact_and_geometric_is_the_plain_sequence():
    assert slope_exponents(4) == tuple(Fraction(-2 * h) for h in range(1, 5))
    assert slope_exponents(6, "geometric") == tuple(Fraction(-8 * h, 6) for h in range(1, 7))
    assert slope_exponents(8, "geometric") == slope_exponents(8)


@pytest.mark.parametrize("args,name", [((0,), "heads"), ((4, "linear"), "rule"), ((2.5,), "heads")])
def test_bad_arguments(args, name):
    with pytest.raises(ValueError, match=name):
        slope_exponents(*args)
