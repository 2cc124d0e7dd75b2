"""Influence rows against dense rational matrix products (independent route)."""

import random
from fractions import Fraction

import flint
import mpmath
import pytest

from lostmid_jax import theory

ALPHAS = [Fraction(0), Fraction(1, 3), Fraction(1, 2), Fraction(1)]


def _exact(x) -> Fraction:
    """An exactly representable arb midpoint or radius as a Fraction."""
    man, exp = x.man_exp()
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def _ball_contains(ball, value: Fraction) -> bool:
    """Exact test of mid - rad <= value <= mid + rad (no rounding involved)."""
    mid, rad = _exact(ball.mid()), _exact(ball.rad())
    return mid - rad <= value <= mid + rad


def _dense_rows(length, schedule):
    """Last rows of N_h ... N_1 for h = 0..H, by dense exact matrix products."""
    product = [[Fraction(int(i == j)) for j in range(length)] for i in range(length)]
    rows = [product[-1]]
    for a in schedule:
        product = theory.exact_matmul(theory.mixing_matrix(length, a, exact=True), product)
        rows.append(product[-1])
    return rows


@pytest.mark.parametrize("length", range(1, 13))
def test_exact_rows_equal_dense_rational_powers(length):
    rng = random.Random(length)
    schedules = [[a] * 6 for a in ALPHAS]
    schedules.append([Fraction(rng.randint(0, 12), 12) for _ in range(6)])
    for schedule in schedules:
        dense = _dense_rows(length, schedule)
        for depth in range(7):
            fast = theory.influence_row(length, depth, schedule[:depth], backend="exact")
            assert fast == dense[depth], (length, depth, schedule[:depth])


@pytest.mark.parametrize("alpha", ALPHAS + [[Fraction(1, 7), Fraction(5, 6), Fraction(1, 2), Fraction(0), Fraction(2, 3), Fraction(1)]])
def test_mpmath_and_arb_agree_with_exact(alpha):
    length, depth = 12, 6
    exact = theory.influence_row(length, depth, alpha, backend="exact")
    mp = theory.influence_row(length, depth, alpha, backend="mpmath", dps=50)
    balls = theory.influence_row(length, depth, alpha, backend="arb", dps=50)
    ctx = mpmath.MPContext()
    ctx.dps = 80
    for e, m, b in zip(exact, mp, balls):
        reference = ctx.mpf(e.numerator) / e.denominator
        assert abs(ctx.mpf(m) - reference) <= ctx.mpf(10) ** -45 * max(reference, ctx.mpf(10) ** -300) or e == m == 0
        assert _ball_contains(b, e)
        if e != 0:
            assert _exact(b.rad()) / e <= Fraction(1, 10**40)


def test_backends_leave_global_precision_alone():
    before = (mpmath.mp.dps, flint.ctx.prec)
    theory.influence_row(5, 3, 0.5, backend="mpmath", dps=80)
    theory.influence_row(5, 3, 0.5, backend="arb", dps=80)
    assert (mpmath.mp.dps, flint.ctx.prec) == before


def test_arb_balls_catch_a_wrong_value():
    """Negative control: a value 1e-45 away is outside the 50-digit ball."""
    ball = theory.influence_row(8, 4, Fraction(1, 2), backend="arb", dps=50)[3]
    exact = theory.influence_row(8, 4, Fraction(1, 2), backend="exact")[3]
    assert _ball_contains(ball, exact)
    assert not _ball_contains(ball, exact + Fraction(1, 10**45))
    assert not _ball_contains(ball, exact - Fraction(1, 10**45))
