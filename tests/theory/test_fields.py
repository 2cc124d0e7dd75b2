"""theory/_fields.py: the exact, mpmath and arb number systems, and that no precision change outlives them."""

from fractions import Fraction

import flint
import mpmath
import pytest

from lostmid_jax.theory._fields import arb_field, fraction_field, mpmath_field


def test_the_exact_field_converts_floats_exactly_and_refuses_irrational_alibi():
    field = fraction_field()
    assert field.convert(0.1) == Fraction(3602879701896397, 2**55) and field.one == 1 and field.zero == 0
    assert field.pow2(Fraction(-3)) == Fraction(1, 8) and field.exp(Fraction(0)) == 1
    with pytest.raises(ValueError, match="irrational"):
        field.pow2(Fraction(-1, 2))
    with pytest.raises(ValueError, match="irrational"):
        field.exp(Fraction(-1, 4))


def test_mpmath_uses_a_private_context():
    before = mpmath.mp.dps
    field = mpmath_field(60)
    third = field.convert(Fraction(1, 3))
    assert mpmath.mp.dps == before
    assert abs(third * 3 - 1) < mpmath.mpf(10) ** -55
    assert abs(field.pow2(Fraction(-1, 2)) ** 2 - mpmath.mpf("0.5")) < mpmath.mpf(10) ** -55


def test_arb_restores_the_precision_and_its_balls_contain_the_value():
    saved = flint.ctx.prec
    with arb_field(40) as field:
        assert flint.ctx.prec == 132 + 32  # 40 digits of 3.32 bits, plus 32 guard bits
        root = field.pow2(Fraction(1, 2))
        assert (root * root).contains(flint.arb(2))
        assert field.exp(field.zero) == field.one
    assert flint.ctx.prec == saved
