"""theory/_validate.py: the theory's argument checks (exact types kept, schedules, backends, digits)."""

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from lostmid_jax.theory._validate import (alpha_schedule, check_alpha, check_backend, check_band, check_depth,
                                          check_dps, check_length, to_fraction)


def test_schedules_from_a_number_or_a_sequence_keep_exact_types():
    assert alpha_schedule(3, Fraction(1, 2)) == (Fraction(1, 2),) * 3
    assert alpha_schedule(2, np.array([0.25, 1])) == (0.25, 1.0)
    assert alpha_schedule(0, 0.5) == ()
    with pytest.raises(ValueError, match="alpha schedule has 2 entries but depth is 3"):
        alpha_schedule(3, [0.1, 0.2])
    with pytest.raises(ValueError, match=r"alpha\[1\]"):
        alpha_schedule(2, [0.1, 2.0])
    with pytest.raises(ValueError, match="a number in \\[0, 1\\] or a sequence"):
        alpha_schedule(2, "0.5")


def test_to_fraction_is_exact():
    assert to_fraction(0.1) == Fraction(3602879701896397, 36028797018963968)
    assert to_fraction(mpmath.mpf("0.5")) == Fraction(1, 2) and to_fraction(3) == 3
    ctx = mpmath.MPContext()
    ctx.dps = 40
    assert to_fraction(ctx.mpf(1) / 4) == Fraction(1, 4)


@pytest.mark.parametrize("call,name", [
    (lambda: check_length(0), "length"), (lambda: check_depth(-1), "depth"), (lambda: check_alpha("a", -0.1), "a"),
    (lambda: check_band(0.5), "band"), (lambda: check_backend("float32"), "backend"), (lambda: check_dps(4), "dps"),
    (lambda: check_dps(10**9), "dps"),
])
def test_bad_arguments_are_named(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_good_arguments_come_back():
    assert (check_length(np.int64(4)), check_depth(0), check_band(0.1), check_backend("exact"), check_dps(30)) == \
        (4, 0, 0.1, "exact", 30)
