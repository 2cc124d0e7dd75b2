"""Continuum density, hop law, moments: against independent routes."""

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

from lostmid_jax import theory


def test_hop_distribution_binomial_and_poisson_binomial():
    np.testing.assert_allclose(theory.hop_distribution(30, 0.3), stats.binom.pmf(np.arange(31), 30, 0.3), rtol=1e-12)
    schedule = [Fraction(1, 3), Fraction(1, 2), Fraction(4, 5), Fraction(0), Fraction(1), Fraction(2, 7)]
    brute = [Fraction(0)] * 7
    for taken in itertools.product([0, 1], repeat=6):
        p = Fraction(1)
        for t, a in zip(taken, schedule):
            p *= a if t else 1 - a
        brute[sum(taken)] += p
    assert theory.hop_distribution(6, schedule, backend="exact") == brute
    np.testing.assert_allclose(theory.hop_distribution(6, schedule), [float(b) for b in brute], rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("alpha", [Fraction(1, 10), Fraction(1, 3), Fraction(1, 2), Fraction(9, 10)])
@pytest.mark.parametrize("depth", [1, 2, 5, 17])
def test_hop_sum_equals_laguerre_form_to_45_digits(alpha, depth):
    for x in ["0.001", "0.1", "0.5", "0.9", "1"]:
        hops = theory.continuum_density(mpmath.mpf(x), depth, alpha, dps=50)
        closed = theory.continuum_density(mpmath.mpf(x), depth, alpha, dps=50, form="laguerre")
        assert abs(hops - closed) <= mpmath.mpf(10) ** -45 * abs(closed)


def test_float64_density_forms_agree_and_a1_is_factorial_law():
    x = np.linspace(0.01, 1.0, 50)
    np.testing.assert_allclose(
        theory.continuum_density(x, 12, 0.4), theory.continuum_density(x, 12, 0.4, form="laguerre"), rtol=1e-10
    )
    for depth in (1, 2, 10, 100, 170):
        expected = math.exp((depth - 1) * math.log(math.log(2)) - math.lgamma(depth))
        assert theory.continuum_density(0.5, depth, 1.0) == pytest.approx(expected, rel=1e-12)


@pytest.mark.extended  # mpmath quadrature at 30 digits
def test_moments_against_quadrature():
    """int x^m rho dx (smooth part by mpmath.quad, plus the delta) = prod(1 - a + a/(m+1))."""
    schedule = [0.2, 0.7, 0.5, 1.0, 0.35]
    delta = theory.recency_weight(5, schedule)
    for m in (0, 1, 2, 5):
        smooth = mpmath.quad(lambda x: x**m * theory.continuum_density(x, 5, schedule, dps=30), [0, 0.01, 0.5, 1])
        assert float(smooth) + delta == pytest.approx(theory.continuum_moment(m, 5, schedule), rel=1e-12)
    assert theory.continuum_moment(0, 5, schedule) == 1.0


def test_discrete_row_converges_to_density_at_rate_one_over_length():
    """L * w_j -> rho(j/L); the worst relative error over x in {1/4, 1/2, 3/4} falls like 1/L."""
    errors = []
    lengths = [1_000, 10_000, 100_000]
    for length in lengths:
        row = theory.influence_row(length, 8, 0.5)
        j = np.array([length // 4, length // 2, 3 * length // 4])
        rho = theory.continuum_density(j / length, 8, 0.5)
        errors.append(np.max(np.abs(length * row[j - 1] - rho) / rho))
    slopes = -np.diff(np.log10(errors))
    assert np.all(slopes > 0.9) and np.all(slopes < 1.1), (errors, slopes)
    assert errors[-1] < 1e-4


def test_summary_masses_partition_and_match_direct_sums():
    length, depth, alpha = 1000, 10, 0.4
    row = theory.influence_row(length, depth, alpha)
    s = theory.summarize_log_row(np.log(row))
    x = np.arange(1, length + 1) / length
    assert s.primacy_mass == pytest.approx(row[x <= 0.1].sum(), rel=1e-12)
    assert s.recency_weight == pytest.approx(row[-1], rel=1e-12)
    assert s.primacy_mass + s.middle_mass + s.late_mass + s.recency_weight == pytest.approx(1.0, abs=1e-12)
    assert s.log10_middle_density == pytest.approx(math.log10(length * row[499]), rel=1e-12)
    assert s.valley_x == (np.argmin(row) + 1) / length
    assert s.log10_peak_to_trough == pytest.approx(math.log10(row.max() / row.min()), rel=1e-12)


@pytest.mark.parametrize("alpha", [0.3, 1.0, [0.9, 0.1, 0.5]])
def test_continuum_summary_against_quadrature(alpha):
    depth = 3
    c = theory.continuum_summary(depth, alpha)
    rho = lambda x: theory.continuum_density(x, depth, alpha, dps=30)  # noqa: E731
    assert c.primacy_mass == pytest.approx(float(mpmath.quad(rho, [0, 0.1])), rel=1e-10)
    assert c.middle_mass == pytest.approx(float(mpmath.quad(rho, [0.1, 0.9])), rel=1e-10)
    assert c.late_mass == pytest.approx(float(mpmath.quad(rho, [0.9, 1])), rel=1e-10)
    assert c.primacy_mass + c.middle_mass + c.late_mass + c.recency_weight == pytest.approx(1.0, abs=1e-12)


def test_bad_continuum_input():
    with pytest.raises(ValueError, match="x"):
        theory.continuum_density(0.0, 3, 0.5)
    with pytest.raises(ValueError, match="x"):
        theory.continuum_density([0.5, 1.5], 3, 0.5)
    with pytest.raises(ValueError, match="form"):
        theory.continuum_density(0.5, 3, 0.5, form="bessel")
    with pytest.raises(ValueError, match="constant alpha"):
        theory.continuum_density(0.5, 2, [0.1, 0.2], form="laguerre")
    with pytest.raises(ValueError, match="m must"):
        theory.continuum_moment(-1, 3, 0.5)
    with pytest.raises(ValueError, match="band"):
        theory.continuum_summary(3, 0.5, band=0.6)
    with pytest.raises(ValueError, match="backend"):
        theory.hop_distribution(3, 0.5, backend="arb")
