"""theory/_costs.py: the cost model of the theory's numbers and its refusals before work."""

from fractions import Fraction

import pytest

from lostmid_jax.theory import _costs


def test_number_sizes_and_times_grow_with_precision():
    assert _costs.number_bytes("float64") == _costs.number_bytes("log") == 8
    assert _costs.number_bytes("mpmath", dps=1000) > _costs.number_bytes("mpmath", dps=50)
    assert _costs.number_ns("arb", dps=1000) > _costs.number_ns("arb", dps=50) > _costs.number_ns("float64")
    assert _costs.number_ns("exact", bits=10**6) > _costs.number_ns("exact", bits=10)


def test_value_bits_counts_numerator_and_denominator():
    assert _costs.value_bits(1) == 1 and _costs.value_bits(255) == 8
    assert _costs.value_bits(Fraction(3, 4)) == 2 + 3
    assert _costs.value_bits(0.5) == 1 + 2  # 1/2 exactly


def test_work_past_the_limits_is_refused_before_it_starts():
    _costs.check_layers(100)
    _costs.check_hops(1000, "log")
    with pytest.raises(ValueError):
        _costs.check_layers(10**13)
    with pytest.raises(ValueError):
        _costs.check_hops(10**6, "exact")
    with pytest.raises(ValueError):
        _costs.check_matmul(10**4, 10**4, 10**4, 64)
