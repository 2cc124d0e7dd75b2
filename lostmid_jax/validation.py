"""Argument checks shared by every package: a ValueError that names the argument and the allowed range.

Nothing is clipped or coerced silently: a bool is not an int, a string is not a
bool, NaN and infinities are not numbers in a range. Each check returns the
value in its canonical Python type (int, float, bool, str) so callers can store
it. Imports nothing heavier than the standard library.

    n = check_int("length", n, minimum=1)
    a = check_float("alpha", a, minimum=0, maximum=1)
    flag = check_bool("pre_norm", flag)
    kind = check_choice("mask", kind, ("causal", "bidirectional"))
"""

from __future__ import annotations

import math
import numbers


def check_int(name: str, value, minimum: int | None = None, maximum: int | None = None) -> int:
    """``value`` as an int in [minimum, maximum] (either bound optional); bools are refused."""
    ok = not isinstance(value, bool) and isinstance(value, numbers.Integral)
    ok = ok and (minimum is None or value >= minimum) and (maximum is None or value <= maximum)
    if not ok:
        raise ValueError(f"{name} must be an int {_range(minimum, maximum)}, got {value!r}")
    return int(value)


def check_optional_int(name: str, value, minimum: int | None = None, maximum: int | None = None) -> int | None:
    """None, or :func:`check_int`."""
    return None if value is None else check_int(name, value, minimum, maximum)


def check_float(name: str, value, minimum: float | None = None, maximum: float | None = None, *,
                open_min: bool = False, open_max: bool = False) -> float:
    """``value`` as a finite float in the interval (bounds closed unless ``open_*``); bools are refused."""
    ok = not isinstance(value, bool) and isinstance(value, numbers.Real) and math.isfinite(value)
    if ok and minimum is not None:
        ok = value > minimum if open_min else value >= minimum
    if ok and maximum is not None:
        ok = value < maximum if open_max else value <= maximum
    if not ok:
        low = "" if minimum is None else ("(" if open_min else "[") + f"{minimum:g}"
        high = "" if maximum is None else f"{maximum:g}" + (")" if open_max else "]")
        where = f" in {low or '(-inf'}, {high or 'inf)'}" if (minimum is not None or maximum is not None) else ""
        raise ValueError(f"{name} must be a finite number{where}, got {value!r}")
    return float(value)


def check_positive_float(name: str, value) -> float:
    """A finite float > 0."""
    return check_float(name, value, 0.0, open_min=True)


def check_bool(name: str, value) -> bool:
    """True or False only (not 'False', 0, None or another truthy object)."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return value


def check_choice(name: str, value, choices) -> str:
    """One of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return value


def _range(minimum, maximum) -> str:
    if minimum is not None and maximum is not None:
        return f"in [{minimum}, {maximum}]"
    if minimum is not None:
        return f">= {minimum}"
    if maximum is not None:
        return f"<= {maximum}"
    return ""
