"""Field checks shared by the mask and prior classes (a ValueError naming the field)."""

from __future__ import annotations

import math

from ..resources import check_budget
from ..validation import check_real


def size(values) -> int | None:
    """len(values), or None for an object without a length (a number, a 0-d array, a generator)."""
    try:
        return len(values)
    except TypeError:
        return None


def is_sequence(value) -> bool:
    """A sized sequence that is not a string, bytes, dict or set."""
    return not isinstance(value, (str, bytes, dict, set)) and size(value) is not None


def finite(name: str, value):
    """A finite real within float range, in an exact Python type (int, float, Fraction, mpf)."""
    value = check_real(name, value)
    try:
        ok = math.isfinite(float(value))
    except OverflowError:
        ok = False
    if not ok:
        raise ValueError(f"{name} must be a finite number within float range, got {value!r}")
    return value


def check_segments(n: int, what: str) -> None:
    """Budget of building and validating ``n`` segment lengths (Python ints)."""
    n = n if n < 1e300 else math.inf
    check_budget(what, nbytes=40.0 * n, operations=1000.0 * n)


def renamed(name: str, value, old: str, old_value):
    """Field ``name`` given as ``name`` or by its old keyword ``old`` (accepted for one release)."""
    if old_value is None:
        return value
    if value is not None:
        raise ValueError(f"give {name} or its old name {old}, not both")
    return old_value
