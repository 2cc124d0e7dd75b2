"""One position convention and one middle (theory.middle), and the shared argument checks."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lostmid_jax import theory


def test_positions_are_one_based():
    np.testing.assert_array_equal(theory.positions(4), [0.25, 0.5, 0.75, 1.0])
    assert [theory.middle_index(n) for n in (1, 2, 3, 4, 5, 2048)] == [1, 1, 1, 2, 2, 1024]
    np.testing.assert_array_equal(theory.distance_from_middle(5), [1.5, 0.5, 0.5, 1.5, 2.5])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.floats(0.01, 0.49))
def test_bands_partition_the_positions(length, band):
    bands = theory.band_masks(length, band)
    stacked = np.stack([bands.primacy, bands.middle, bands.late, bands.recency]).astype(int)
    np.testing.assert_array_equal(stacked.sum(axis=0), np.ones(length, int))
    assert bands.recency[-1] and bands.recency.sum() == 1
    x = theory.positions(length)
    np.testing.assert_array_equal(bands.middle, (x > band) & (x < 1 - band) & (x < 1))
    np.testing.assert_array_equal(theory.middle_mask(length, band), bands.middle)


@pytest.mark.parametrize("length", [1, 2, 7, 64])
def test_summary_reads_the_shared_middle(length):
    log_w = theory.log_influence_row(length, 3, 0.6)
    s = theory.summarize_log_row(log_w, band=0.2)
    w = np.exp(log_w)
    bands = theory.band_masks(length, 0.2)
    j_mid = theory.middle_index(length)
    assert s.middle_x == j_mid / length
    assert s.log10_middle_density == pytest.approx(math.log10(length * w[j_mid - 1]), abs=1e-12)
    for name, mask in (("primacy_mass", bands.primacy), ("middle_mass", bands.middle), ("late_mass", bands.late)):
        assert getattr(s, name) == pytest.approx(w[mask].sum(), abs=1e-15)
    assert theory.continuum_summary(3, 0.6).middle_x == theory.MIDDLE_X


@pytest.mark.parametrize(
    "make,name",
    [
        (lambda: theory.cesaro_matrix(4, exact="False"), "exact"),
        (lambda: theory.cesaro_matrix(4, exact=0), "exact"),
        (lambda: theory.mixing_matrix(4, 0.5, exact="yes"), "exact"),
        (lambda: theory.attention_matrix(theory.Causal(), 4, exact=None), "exact"),
        (lambda: theory.mixing_matrix(4, 1.5), "alpha"),
        (lambda: theory.power_law_schedule(3, 0.5, -1.0), "b"),
        (lambda: theory.power_law_schedule(3, True, 1.0), "a0"),
        (lambda: theory.hop_distribution(3, 0.5, backend="arb"), "backend"),
        (lambda: theory.hop_distribution(3, 0.5, backend="mpmath", dps=4), "dps"),
        (lambda: theory.band_masks(8, 0.5), "band"),
        (lambda: theory.positions(0), "length"),
        (lambda: theory.summarize_log_row(np.zeros(4), band=True), "band"),
        (lambda: theory.continuum_density(0.5, 2, 0.5, form="closed"), "form"),
        (lambda: theory.check_alpha("custom[2]", float("nan")), r"custom\[2\]"),
    ],
)
def test_bad_input_raises_value_error_naming_argument(make, name):
    with pytest.raises(ValueError, match=name):
        make()


@pytest.mark.parametrize("value", [Fraction(1, 3), 0, 1, 0.25, mpmath.mpf("0.5"), np.float64(0.75)])
def test_check_alpha_keeps_the_number_type(value):
    assert theory.check_alpha("alpha", value) is value
