"""theory/summary.py: band masses, middle density and valley of a row and of the continuum, against hand values."""

import math

import numpy as np
import pytest

from lostmid_jax.theory.summary import continuum_summary, summarize_log_row


def test_a_discrete_row_split_into_bands():
    w = np.array([0.3, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.3])  # L = 10, band 0.1
    s = summarize_log_row(np.log(w))
    assert s.length == 10 and s.recency_weight == pytest.approx(0.3)
    assert s.primacy_mass == pytest.approx(0.3)  # x = 0.1 only
    assert s.late_mass == pytest.approx(0.05)  # 0.9 <= x, j < L: j = 9
    assert s.middle_mass == pytest.approx(0.35)  # 0.1 < x < 0.9: j = 2..8
    assert s.middle_x == 0.5 and s.log10_middle_density == pytest.approx(math.log10(10 * 0.05))
    assert s.valley_x == 0.2 and s.log10_peak_to_trough == pytest.approx(math.log10(6))


@pytest.mark.parametrize("bad,match", [(np.array([0.1, np.nan]), "no NaN"), (np.array([0.5]), "log weights <= 0"),
                                       ("abc", "1-D array"), (np.zeros((2, 2)), "1-D array")])
def test_bad_rows_are_refused(bad, match):
    with pytest.raises(ValueError, match=match):
        summarize_log_row(bad)


def test_the_all_attention_continuum():
    s = continuum_summary(3, 1.0)
    assert s.recency_weight == 0.0 and s.log10_valley_density == -math.inf
    assert s.log10_middle_density == pytest.approx(math.log10(math.log(2) ** 2 / 2), rel=1e-12)
    assert s.primacy_mass + s.middle_mass + s.late_mass == pytest.approx(1.0, rel=1e-12)


def test_a_partial_strength_continuum():
    h, a = 4, 0.5
    s = continuum_summary(h, a)
    assert s.recency_weight == pytest.approx((1 - a) ** h)
    assert 10 ** s.log10_valley_density == pytest.approx(h * a * (1 - a) ** (h - 1))  # P(hops = 1)
    assert s.primacy_mass + s.middle_mass + s.late_mass + s.recency_weight == pytest.approx(1.0, rel=1e-12)
    assert s.log10_peak_to_trough is None and s.length is None
