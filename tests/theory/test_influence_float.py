"""float64, JAX and log-space rows: sums, commutation, deep stacks."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lostmid_jax import theory

schedules = st.integers(1, 60).flatmap(
    lambda length: st.tuples(
        st.just(length),
        st.lists(st.floats(0.0, 1.0), min_size=0, max_size=12),
    )
)


@settings(max_examples=60, deadline=None)
@given(schedules)
def test_rows_sum_to_one(case):
    length, schedule = case
    row = theory.influence_row(length, len(schedule), schedule)
    assert abs(row.sum() - 1.0) <= 1e-12
    assert np.all(row >= 0)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 8), st.lists(st.fractions(0, 1, max_denominator=9), min_size=1, max_size=5), st.randoms())
def test_layer_order_does_not_matter(length, schedule, rnd):
    shuffled = list(schedule)
    rnd.shuffle(shuffled)
    exact = theory.influence_row(length, len(schedule), schedule, backend="exact")
    assert exact == theory.influence_row(length, len(schedule), shuffled, backend="exact")
    assert sum(exact) == 1


@pytest.mark.parametrize("alpha", [0.0, 0.25, 1.0, [0.9, 0.1, 0.5, 0.3, 0.7]])
def test_float64_matches_exact(alpha):
    exact = theory.influence_row(40, 5, alpha, backend="exact")
    fast = theory.influence_row(40, 5, alpha)
    np.testing.assert_allclose(fast, [float(v) for v in exact], rtol=1e-14, atol=0)


def test_jax_backend_matches_float64():
    schedule = list(np.linspace(0.05, 0.95, 16))
    np.testing.assert_allclose(
        np.asarray(theory.influence_row(3000, 16, schedule, backend="jax")),
        theory.influence_row(3000, 16, schedule),
        rtol=1e-13,
    )
    assert theory.influence_row(10, 2, 0.5, backend="jax").dtype == np.float64


def test_log_row_matches_float64_where_no_underflow():
    row = theory.influence_row(5000, 24, 0.6)
    np.testing.assert_allclose(np.exp(theory.log_influence_row(5000, 24, 0.6)), row, rtol=1e-12)
    assert theory.log_influence_row(4, 3, 0.0)[:-1].tolist() == [-math.inf] * 3


@pytest.mark.parametrize("length", [2_000, pytest.param(10_000, marks=pytest.mark.slow)])  # mpmath row: 1 s, 7 s
def test_deep_stack_middle_value_where_float64_underflows(length):
    depth, mid = 200, length // 2
    plain = theory.influence_row(length, depth, 1.0)
    assert plain[mid - 1] == 0.0  # float64 underflows here
    log_row = theory.log_influence_row(length, depth, 1.0)
    reference = theory.influence_row(length, depth, 1, backend="mpmath", dps=20)
    for j in (1, 100, mid, length - 1, length):
        # |log error| is the relative error of the value: ~2.5e-12 measured
        assert abs(log_row[j - 1] - float(mpmath.log(reference[j - 1]))) <= 1e-10


@pytest.mark.parametrize(
    "kwargs,name",
    [
        (dict(length=0, depth=2, alpha=0.5), "length"),
        (dict(length=2.5, depth=2, alpha=0.5), "length"),
        (dict(length=4, depth=-1, alpha=0.5), "depth"),
        (dict(length=4, depth=2, alpha=1.5), "alpha"),
        (dict(length=4, depth=2, alpha=-0.1), "alpha"),
        (dict(length=4, depth=2, alpha=float("nan")), "alpha"),
        (dict(length=4, depth=2, alpha=[0.5]), "depth"),
        (dict(length=4, depth=2, alpha=[0.5, float("inf")]), r"alpha\[1\]"),
        (dict(length=4, depth=2, alpha=0.5, backend="fp16"), "backend"),
        (dict(length=4, depth=2, alpha=0.5, backend="mpmath", dps=2), "dps"),
    ],
)
def test_bad_input_raises_value_error_naming_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        theory.influence_row(**kwargs)
    if "backend" not in kwargs:
        with pytest.raises(ValueError, match=name):
            theory.log_influence_row(**kwargs)


def test_exact_alpha_keeps_its_value():
    row = theory.influence_row(3, 1, Fraction(1, 3), backend="exact")
    assert row == [Fraction(1, 9), Fraction(1, 9), Fraction(7, 9)]
