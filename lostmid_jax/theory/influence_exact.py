"""Arbitrary-precision and exact backends of the influence-row recurrence.

Same recurrence as :func:`lostmid_jax.theory.influence_row`, walking the row
from position L down to 1 and keeping the running suffix sum s:

    s += r_i / i;   r_i <- (1 - a) r_i + a s.

No global precision is changed: mpmath runs in a private ``MPContext`` and
python-flint's precision is restored after use.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import mpmath

from ._validate import to_fraction


def _sweep(row, inv, schedule, convert, one):
    """Apply every block in place; ``convert`` maps an alpha to the number type."""
    length = len(row)
    for alpha in schedule:
        a = convert(alpha)
        if a == 0:
            continue
        keep = one - a
        s = row[0] * 0  # a zero of the right type
        if keep == 0:
            for i in range(length - 1, -1, -1):
                s += row[i] * inv[i]
                row[i] = s
        else:
            for i in range(length - 1, -1, -1):
                s += row[i] * inv[i]
                row[i] = keep * row[i] + a * s
    return row


def row_exact(length: int, schedule: tuple) -> list:
    """Exact rational row (``Fraction``); alpha values are converted exactly."""
    row = [Fraction(0)] * length
    row[-1] = Fraction(1)
    inv = [Fraction(1, i) for i in range(1, length + 1)]
    return _sweep(row, inv, schedule, to_fraction, Fraction(1))


def row_mpmath(length: int, schedule: tuple, dps: int) -> list:
    """Row of mpf numbers computed at ``dps`` digits in a private context."""
    ctx = mpmath.MPContext()
    ctx.dps = dps

    def convert(alpha):
        f = to_fraction(alpha)
        return ctx.mpf(f.numerator) / f.denominator

    row = [ctx.zero] * length
    row[-1] = ctx.one
    inv = [ctx.one / i for i in range(1, length + 1)]
    return _sweep(row, inv, schedule, convert, ctx.one)


def row_arb(length: int, schedule: tuple, dps: int) -> list:
    """Row of python-flint arb balls, each certified to contain the exact value.

    Works at ``dps`` decimal digits plus 32 guard bits; the balls' radii
    bound every rounding error (interval arithmetic), so the relative radius
    is about 10^-dps times a small multiple of L H.
    """
    saved = flint.ctx.prec
    flint.ctx.prec = int(dps * 3.3219280948873626) + 32
    try:
        def convert(alpha):
            f = to_fraction(alpha)
            return flint.arb(f.numerator) / f.denominator

        one = flint.arb(1)
        row = [flint.arb(0)] * length
        row[-1] = one
        inv = [one / i for i in range(1, length + 1)]
        return _sweep(row, inv, schedule, convert, one)
    finally:
        flint.ctx.prec = saved
