"""Number systems of the exact and arbitrary-precision backends.

A :class:`Field` bundles what the row recurrences need from a number type:
zero, one, an exact conversion of validated reals (float, int, Fraction, mpf),
and exp / powers of two for the ALiBi prior. No global precision changes
outlive a computation: mpmath gets a private ``MPContext``, and
:func:`arb_field` restores python-flint's precision on exit.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from fractions import Fraction

import flint
import mpmath

from ._validate import to_fraction

_BITS_PER_DIGIT = 3.3219280948873626


@dataclasses.dataclass(frozen=True)
class Field:
    """Arithmetic of one backend.

    Attributes:
      name: "exact", "mpmath" or "arb".
      zero, one: the field's 0 and 1.
      convert: exact image of a validated real number.
      exp: e^x for an element x.
      pow2: 2^e for a ``Fraction`` exponent e.
    """

    name: str
    zero: object
    one: object
    convert: Callable
    exp: Callable
    pow2: Callable


def _rational_exp(x: Fraction) -> Fraction:
    if x != 0:
        raise ValueError("ALiBi weights e^(-m) are irrational: backend 'exact' needs all slopes 0; use 'mpmath' or 'arb'")
    return Fraction(1)


def _rational_pow2(e: Fraction) -> Fraction:
    if e.denominator != 1:
        raise ValueError(f"2^({e}) is irrational: backend 'exact' cannot represent the standard ALiBi slopes; use 'mpmath' or 'arb'")
    return Fraction(2) ** int(e)


def fraction_field() -> Field:
    """Exact rationals (``fractions.Fraction``)."""
    return Field("exact", Fraction(0), Fraction(1), to_fraction, _rational_exp, _rational_pow2)


def mpmath_field(dps: int) -> Field:
    """mpf numbers at ``dps`` decimal digits in a private context."""
    ctx = mpmath.MPContext()
    ctx.dps = dps

    def convert(value):
        f = to_fraction(value)
        return ctx.mpf(f.numerator) / f.denominator

    return Field("mpmath", ctx.zero, ctx.one, convert, ctx.exp,
                 lambda e: ctx.power(2, ctx.mpf(e.numerator) / e.denominator))


@contextlib.contextmanager
def arb_field(dps: int):
    """python-flint arb balls at ``dps`` digits plus 32 guard bits, inside the ``with``.

    The balls' radii bound every rounding error, so results are certified
    to contain the exact value.
    """
    saved = flint.ctx.prec
    flint.ctx.prec = int(dps * _BITS_PER_DIGIT) + 32
    try:
        def convert(value):
            f = to_fraction(value)
            return flint.arb(f.numerator) / f.denominator

        yield Field("arb", flint.arb(0), flint.arb(1), convert, lambda x: x.exp(),
                    lambda e: flint.arb(2) ** (flint.arb(e.numerator) / e.denominator))
    finally:
        flint.ctx.prec = saved
