"""stats/_profiles.py: validation, normalization and binning of profile ensembles."""

import numpy as np
import pytest

from lostmid_jax.stats._profiles import bin_matrix, check_profiles, normalized, profiles_and_reference


def test_bins_are_equal_intervals_of_x():
    m = bin_matrix(6, 3)
    assert m.argmax(1).tolist() == [0, 0, 1, 1, 2, 2] and m.sum() == 6
    assert bin_matrix(5, 2).argmax(1).tolist() == [0, 0, 1, 1, 1]  # ceil(j * 2 / 5): 1, 1, 2, 2, 2


def test_normalized_rows_sum_to_one_and_keep_their_shape_in_bins():
    p = normalized(np.array([[1.0, 1.0, 2.0, 4.0]]), 2)
    assert p.tolist() == [[0.25, 0.75]]
    raw = normalized(np.array([[1.0, 3.0]]), None)
    assert raw.tolist() == [[0.25, 0.75]]


@pytest.mark.parametrize("value,message", [
    (np.ones(3), "must be 2-D"), (np.ones((2, 0)), "must not be empty"), ([[1.0, np.nan]], "1 NaN or inf"),
    ([[1.0, -1.0]], "1 negative"), ([[0.0, 0.0]], "positive sum"),
])
def test_bad_profiles_are_named(value, message):
    with pytest.raises(ValueError, match=message):
        check_profiles("profiles", value, (2,))


def test_reference_must_match_and_bins_are_checked():
    p, ref = profiles_and_reference(np.ones((3, 4)), np.arange(1.0, 5.0), 2)
    assert p.shape == (3, 2) and ref.tolist() == pytest.approx([0.3, 0.7])
    with pytest.raises(ValueError, match=r"reference must have shape \[L\] or \[S, L\] = \[4\] or \[3, 4\]"):
        profiles_and_reference(np.ones((3, 4)), np.ones(5), None)
    with pytest.raises(ValueError, match="bins"):
        profiles_and_reference(np.ones((3, 4)), np.ones(4), 5)
