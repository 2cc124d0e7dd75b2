"""theory/_arith.py: float64, log-space and field arithmetics give the same sums (geometric scans included)."""

import math
from fractions import Fraction

import numpy as np
import pytest

from lostmid_jax.theory._arith import FieldOps, FloatOps, LogOps
from lostmid_jax.theory._fields import fraction_field, mpmath_field

U = np.random.default_rng(5).random(12)


def _geometric_suffix(u, m):
    q = math.exp(-m)
    return np.array([sum(u[i] * q ** (i - j) for i in range(j, u.size)) for j in range(u.size)])


@pytest.mark.parametrize("m", [0.0, 0.3, 5.0])
def test_geometric_suffix_in_float_and_log_space(m):
    assert FloatOps().geometric_suffix(U, m) == pytest.approx(_geometric_suffix(U, m), rel=1e-12)
    assert np.exp(LogOps().geometric_suffix(np.log(U), m)) == pytest.approx(_geometric_suffix(U, m), rel=1e-10)


def test_geometric_norms_are_the_sums_they_invert():
    m, length = 0.7, 6
    z = np.array([sum(math.exp(-m * d) for d in range(i)) for i in range(1, length + 1)])
    assert FloatOps().geometric_recip_norm(m, length) == pytest.approx(1 / z, rel=1e-13)
    assert FloatOps().geometric_recip_norm(0.0, 4) == pytest.approx([1, 1 / 2, 1 / 3, 1 / 4])


def test_the_three_arithmetics_agree_on_sums_and_mixes():
    row, new = np.array([0.2, 0.3, 0.5]), np.array([0.5, 0.25, 0.25])
    f, lg = FloatOps(), LogOps()
    assert f.mix(row, new, 0.25) == pytest.approx([0.275, 0.2875, 0.4375])
    assert np.exp(lg.mix(np.log(row), np.log(new), 0.25)) == pytest.approx(f.mix(row, new, 0.25), rel=1e-14)
    assert np.exp(lg.accumulate(np.log(row))) == pytest.approx(np.cumsum(row), rel=1e-14)
    exact = FieldOps(fraction_field())
    rows = exact.mix(np.array([Fraction(1, 5), Fraction(3, 10), Fraction(1, 2)], dtype=object),
                     np.array([Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)], dtype=object), Fraction(1, 4))
    assert list(rows) == [Fraction(11, 40), Fraction(23, 80), Fraction(7, 16)]
    assert list(exact.recip(np.array([1, 2, 3]))) == [1, Fraction(1, 2), Fraction(1, 3)]
    mp = FieldOps(mpmath_field(30))
    assert float(mp.total(mp.recip(np.array([2, 4])))) == pytest.approx(0.75, rel=1e-28)


def test_log_space_sums_do_not_underflow():
    tiny = np.array([-2000.0, -2000.0])  # e^-2000 underflows float64
    assert LogOps().total(tiny) == pytest.approx(-2000.0 + math.log(2), rel=1e-15)
