"""Arbitrary-precision and exact backends of the influence-row recurrence.

Same recurrence as :func:`lostmid_jax.theory.influence_row`, walking the row
from position L down to 1 and keeping the running suffix sum s:

    s += r_i / i;   r_i <- (1 - a) r_i + a s.

No global precision is changed: mpmath runs in a private ``MPContext`` and
python-flint's precision is restored after use (:mod:`._fields`).
"""

from __future__ import annotations

from ._fields import Field, arb_field, fraction_field, mpmath_field


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


def row_in_field(length: int, schedule: tuple, field: Field) -> list:
    """The causal (Cesàro) row as a list of ``field`` elements."""
    row = [field.zero] * length
    row[-1] = field.one
    inv = [field.one / i for i in range(1, length + 1)]
    return _sweep(row, inv, schedule, field.convert, field.one)


def row_exact(length: int, schedule: tuple) -> list:
    """Exact rational row (``Fraction``); alpha values are converted exactly."""
    return row_in_field(length, schedule, fraction_field())


def row_mpmath(length: int, schedule: tuple, dps: int) -> list:
    """Row of mpf numbers computed at ``dps`` digits in a private context."""
    return row_in_field(length, schedule, mpmath_field(dps))


def row_arb(length: int, schedule: tuple, dps: int) -> list:
    """Row of python-flint arb balls, each certified to contain the exact value.

    Works at ``dps`` decimal digits plus 32 guard bits; the balls' radii
    bound every rounding error (interval arithmetic), so the relative radius
    is about 10^-dps times a small multiple of L H.
    """
    with arb_field(dps) as field:
        return row_in_field(length, schedule, field)
