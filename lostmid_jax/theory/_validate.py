"""Argument checks of the theory functions, built on :mod:`lostmid_jax.validation`.

Every public theory function validates at its boundary and raises a
ValueError that names the argument and the allowed range. Nothing is clipped.
Attention weights keep their number type (float, int, Fraction, mpf) so the
exact backends stay exact. The public ones are re-exported by
:mod:`lostmid_jax.theory` (``check_alpha``, ``check_band``, ``check_length``,
``check_depth``) for the experiment configs.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from fractions import Fraction

import mpmath

from ..validation import check_choice, check_float_like, check_int_like, check_real, python_scalar
from ..resources import check_max_dps


def check_length(length) -> int:
    """L as an int >= 1 (any integral type, NumPy's and 0-d arrays included)."""
    return check_int_like("length", length, 1)


def check_depth(depth) -> int:
    """H as an int >= 0."""
    return check_int_like("depth", depth, 0)


def check_alpha(name: str, value):
    """An attention weight a in [0, 1], in an exact Python type.

    int, float (``np.float64`` included), ``Fraction`` and ``mpf`` are
    returned unchanged, so the exact backends stay exact; other NumPy
    scalars and 0-d arrays become int / float (:func:`~lostmid_jax.validation.check_real`).

    >>> check_alpha("alpha", Fraction(1, 3))
    Fraction(1, 3)
    >>> check_alpha("a0", 1.5)
    Traceback (most recent call last):
    ...
    ValueError: a0 must be a finite number in [0, 1], got 1.5
    """
    return check_real(name, value, 0, 1)


def check_band(band) -> float:
    """Width of the primacy and late bands in x = j/L, in (0, 0.5)."""
    return check_float_like("band", band, 0, 0.5, open_min=True, open_max=True)


def alpha_schedule(depth: int, alpha) -> tuple:
    """Per-layer attention weights a_1..a_H from a number or a sequence.

    Args:
      depth: H >= 0 (already validated).
      alpha: one number in [0, 1] (used for every layer; a NumPy scalar or
        0-d array too) or a sequence of ``depth`` numbers in [0, 1] (a list,
        tuple or 1-D array). Values keep an exact type (float, int, Fraction,
        mpf) so the exact backends stay exact; NumPy scalars are converted.

    Returns:
      A tuple of length ``depth``.
    """
    alpha = python_scalar(alpha)
    if isinstance(alpha, (numbers.Real, mpmath.mpf)) and not isinstance(alpha, bool):
        return (check_alpha("alpha", alpha),) * depth
    if isinstance(alpha, (str, bytes, dict, set, frozenset)) or not isinstance(alpha, Sequence) and not hasattr(alpha, "__len__"):
        raise ValueError(f"alpha must be a number in [0, 1] or a sequence of {depth} such numbers, got {alpha!r}")
    try:
        values = list(alpha) if len(alpha) == depth else None
    except TypeError:
        raise ValueError(f"alpha must be a number in [0, 1] or a sequence of {depth} such numbers, got {alpha!r}") from None
    if values is None or len(values) != depth:
        raise ValueError(f"alpha schedule has {len(alpha)} entries but depth is {depth}; they must match")
    return tuple(check_alpha(f"alpha[{i}]", v) for i, v in enumerate(values))


def to_fraction(value) -> Fraction:
    """Exact rational value of a validated alpha (floats are converted exactly)."""
    if isinstance(value, mpmath.mpf) or hasattr(value, "_mpf_"):  # an mpf of any mpmath context
        man, exp = value.man_exp
        return Fraction(int(man)) * (Fraction(2) ** int(exp))
    if isinstance(value, (int, float, Fraction, numbers.Rational)):
        return Fraction(value)
    if hasattr(value, "as_integer_ratio"):  # other binary reals (gmpy2.mpfr, ...)
        return Fraction(*value.as_integer_ratio())
    return Fraction(float(value))


BACKENDS = ("float64", "jax", "mpmath", "arb", "exact")


def check_backend(backend: str) -> str:
    """One of :data:`BACKENDS`."""
    return check_choice("backend", python_scalar(backend), BACKENDS)


def check_dps(dps) -> int:
    """Decimal digits of the mpmath / arb backends: an int in [5, max_dps] (:mod:`.resources`, 10,000 by default)."""
    return check_max_dps(check_int_like("dps", dps, 5))
