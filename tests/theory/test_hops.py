"""theory/hops.py: the hop-count distribution against the binomial law and brute-force enumeration."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from lostmid_jax.theory.hops import hop_distribution, log_hop_distribution


def test_constant_strength_is_binomial():
    h, a = 7, 0.3
    expected = [math.comb(h, k) * a**k * (1 - a) ** (h - k) for k in range(h + 1)]
    assert hop_distribution(h, a) == pytest.approx(expected, rel=1e-12)


def test_a_schedule_is_poisson_binomial_by_enumeration():
    schedule = [Fraction(1, 3), Fraction(1, 2), Fraction(4, 5), Fraction(0)]
    expected = [Fraction(0)] * 5
    for taken in itertools.product((0, 1), repeat=4):
        p = Fraction(1)
        for a, t in zip(schedule, taken):
            p *= a if t else 1 - a
        expected[sum(taken)] += p
    assert hop_distribution(4, schedule, backend="exact") == expected
    mp = hop_distribution(4, schedule, backend="mpmath", dps=30)
    assert [float(v) for v in mp] == pytest.approx([float(v) for v in expected], rel=1e-25)


def test_log_space_stays_finite_where_the_probability_underflows():
    log_p = log_hop_distribution(2000, 0.5)
    assert np.isfinite(log_p).all()
    assert log_p[-1] == pytest.approx(2000 * math.log(0.5), rel=1e-12)
    assert log_hop_distribution(3, 1.0)[:3].tolist() == [-np.inf] * 3


@pytest.mark.parametrize("kwargs,name", [(dict(depth=-1, alpha=0.5), "depth"), (dict(depth=2, alpha=1.5), "alpha"),
                                         (dict(depth=2, alpha=0.5, backend="float32"), "backend")])
def test_bad_arguments(kwargs, name):
    with pytest.raises(ValueError, match=name):
        hop_distribution(**kwargs)
