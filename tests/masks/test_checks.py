"""masks/_checks.py: the field checks the mask classes share."""

from fractions import Fraction

import numpy as np
import pytest

from lostmid_jax.masks._checks import check_segments, finite, is_sequence, renamed, size


def test_size_and_is_sequence():
    assert size([1, 2, 3]) == 3 and size(5) is None and size(np.float64(1.0)) is None
    assert is_sequence((1, 2)) and is_sequence(np.arange(3))
    assert not any(is_sequence(v) for v in ("ab", b"ab", {1: 2}, {1}, 7, (i for i in range(2))))


def test_finite_keeps_exact_values_and_refuses_the_rest():
    assert finite("w", Fraction(1, 3)) == Fraction(1, 3) and finite("w", 2) == 2
    for bad in (float("inf"), float("nan"), 10**400):
        with pytest.raises(ValueError, match="w must be"):
            finite("w", bad)
    with pytest.raises(ValueError, match="w"):
        finite("w", "3")


def test_renamed_takes_either_name_not_both():
    assert renamed("window", 4, "width", None) == 4
    assert renamed("window", None, "width", 5) == 5
    with pytest.raises(ValueError, match="give window or its old name width, not both"):
        renamed("window", 4, "width", 5)


def test_check_segments_refuses_a_count_past_the_limits():
    check_segments(10, "Chunks(lengths)")
    with pytest.raises(ValueError, match="Chunks"):
        check_segments(10**30, "Chunks(lengths)")
