"""Argument checks shared by the theory functions.

Every public theory function validates at its boundary and raises a
ValueError that names the argument and the allowed range. Nothing is clipped.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from fractions import Fraction

import mpmath


def check_length(length) -> int:
    """Return ``length`` as an int, requiring an integer >= 1."""
    if isinstance(length, bool) or not isinstance(length, numbers.Integral):
        raise ValueError(f"length must be an integer >= 1, got {length!r}")
    if length < 1:
        raise ValueError(f"length must be an integer >= 1, got {length}")
    return int(length)


def check_depth(depth) -> int:
    """Return ``depth`` as an int, requiring an integer >= 0."""
    if isinstance(depth, bool) or not isinstance(depth, numbers.Integral):
        raise ValueError(f"depth must be an integer >= 0, got {depth!r}")
    if depth < 0:
        raise ValueError(f"depth must be an integer >= 0, got {depth}")
    return int(depth)


def _check_one_alpha(value, name: str):
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a real number in [0, 1], got {value!r}")
    if isinstance(value, mpmath.mpf):
        ok = mpmath.isfinite(value)
    elif isinstance(value, (numbers.Real, Fraction)):
        ok = math.isfinite(value)
    else:
        raise ValueError(f"{name} must be a real number in [0, 1], got {value!r}")
    if not ok or not (0 <= value <= 1):
        raise ValueError(f"{name} must be a finite number in [0, 1], got {value!r}")
    return value


def alpha_schedule(depth: int, alpha) -> tuple:
    """Per-layer attention weights a_1..a_H from a number or a sequence.

    Args:
      depth: H >= 0 (already validated).
      alpha: one number in [0, 1] (used for every layer) or a sequence of
        ``depth`` numbers in [0, 1]. Values keep their type (float, int,
        Fraction, mpf) so the exact backends stay exact.

    Returns:
      A tuple of length ``depth``.
    """
    if isinstance(alpha, (numbers.Real, mpmath.mpf)) and not isinstance(alpha, bool):
        return (_check_one_alpha(alpha, "alpha"),) * depth
    if isinstance(alpha, (str, bytes)) or not isinstance(alpha, Sequence) and not hasattr(alpha, "__len__"):
        raise ValueError(f"alpha must be a number in [0, 1] or a sequence of {depth} such numbers, got {alpha!r}")
    values = list(alpha)
    if len(values) != depth:
        raise ValueError(f"alpha schedule has {len(values)} entries but depth is {depth}; they must match")
    return tuple(_check_one_alpha(v, f"alpha[{i}]") for i, v in enumerate(values))


def to_fraction(value) -> Fraction:
    """Exact rational value of a validated alpha (floats are converted exactly)."""
    if isinstance(value, mpmath.mpf):
        man, exp = mpmath.mpf(value).man_exp
        return Fraction(int(man)) * (Fraction(2) ** int(exp))
    return Fraction(value)


BACKENDS = ("float64", "jax", "mpmath", "arb", "exact")


def check_backend(backend: str) -> str:
    """Require one of :data:`BACKENDS`."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    return backend


def check_dps(dps) -> int:
    """Require an integer number of decimal digits >= 5."""
    if isinstance(dps, bool) or not isinstance(dps, numbers.Integral) or dps < 5:
        raise ValueError(f"dps must be an integer >= 5, got {dps!r}")
    return int(dps)
