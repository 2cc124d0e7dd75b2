"""Argument checks shared by every package: a ValueError that names the argument and the allowed range.

Nothing is clipped or coerced silently: a bool is not an int, a string is not a
bool, NaN and infinities are not numbers in a range. Each check returns the
value in its canonical Python type (int, float, bool, str) so callers can store
it. Imports nothing heavier than the standard library (NumPy values are
recognised only if NumPy is already loaded).

Two families:

* ``check_int``, ``check_float``, ``check_bool``, ``check_choice``: the value
  as given must already be of the type (a NumPy integer or float scalar is an
  int / a real; a 0-d array or ``np.bool_`` is not), so a caller that only
  validates and keeps the original value keeps a hashable, JSON-ready one.
* ``check_int_like``, ``check_float_like``, ``check_bool_like``,
  ``check_real``: the same ranges and messages, and also NumPy scalars
  (``np.int64(1)``, ``np.float32(0.5)``, ``np.bool_(True)``) and 0-d arrays
  (NumPy's, or any with ``__array__``, such as jax's), converted once by
  :func:`python_scalar`. Callers must store the returned value.
  ``check_real`` keeps an exact value exact (int, Fraction, mpf), for
  arithmetic backends (fractions, mpmath, python-flint) that accept only
  Python numbers.

    n = check_int("length", n, minimum=1)
    a = check_float("alpha", a, minimum=0, maximum=1)
    r = check_real("alpha", r, 0, 1)           # Fraction / mpf kept exact
    flag = check_bool("pre_norm", flag)
    kind = check_choice("mask", kind, ("causal", "bidirectional"))
"""

from __future__ import annotations

import math
import numbers
import sys
from fractions import Fraction


def python_scalar(value):
    """``value`` with NumPy wrappers removed: a 0-d array becomes its element, NumPy scalars Python ones.

    A 0-d array (NumPy's, or another library's with ``__array__`` and shape
    ()) is unwrapped; then NumPy integers become int, NumPy bools bool, NumPy
    floats float (a ``longdouble`` that float64 cannot hold exactly becomes
    the exact ``Fraction``), NumPy strings str. Anything else (including
    ``np.float64``, already a float, and arrays with ndim >= 1) is returned
    unchanged.

    >>> python_scalar(5)
    5
    """
    np = sys.modules.get("numpy")
    if np is None:
        return value
    if (not isinstance(value, (np.ndarray, np.generic)) and getattr(value, "shape", None) == ()
            and hasattr(value, "__array__")):
        value = np.asarray(value)  # a 0-d array of another library (jax, torch)
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            return value
        value = value[()]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating) and not isinstance(value, float):
        as_float = float(value)
        if as_float == value or not math.isfinite(as_float):
            return as_float
        return Fraction(*value.as_integer_ratio())
    if isinstance(value, np.str_):
        return str(value)
    return value


def _finite_in(value, minimum, maximum, open_min: bool, open_max: bool) -> bool:
    """Whether a real ``value`` is finite and in the interval (huge ints and Fractions included)."""
    try:
        if not math.isfinite(value):
            return False
    except OverflowError:  # an int or Fraction beyond float range is finite
        pass
    if minimum is not None and not (value > minimum if open_min else value >= minimum):
        return False
    return maximum is None or (value < maximum if open_max else value <= maximum)


def _real_error(name: str, value, minimum, maximum, open_min: bool, open_max: bool) -> ValueError:
    low = "" if minimum is None else ("(" if open_min else "[") + f"{minimum:g}"
    high = "" if maximum is None else f"{maximum:g}" + (")" if open_max else "]")
    where = f" in {low or '(-inf'}, {high or 'inf)'}" if (minimum is not None or maximum is not None) else ""
    return ValueError(f"{name} must be a finite number{where}, got {value!r}")


def _to_float(name: str, value) -> float:
    try:
        out = float(value)
    except OverflowError:
        out = math.inf
    if not math.isfinite(out):
        raise ValueError(f"{name} must be a finite number (within float range), got {value!r}")
    return out


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
    """``value`` as a finite float in the interval (bounds closed unless ``open_*``); bools are refused.

    A value beyond float range (such as ``10**400``) is refused like an infinity.
    """
    ok = not isinstance(value, bool) and isinstance(value, numbers.Real)
    if not (ok and _finite_in(value, minimum, maximum, open_min, open_max)):
        raise _real_error(name, value, minimum, maximum, open_min, open_max)
    return _to_float(name, value)


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


def check_int_like(name: str, value, minimum: int | None = None, maximum: int | None = None) -> int:
    """:func:`check_int` that also takes a 0-d integer array; returns a Python int (store it)."""
    return check_int(name, python_scalar(value), minimum, maximum)


def check_real(name: str, value, minimum: float | None = None, maximum: float | None = None, *,
               open_min: bool = False, open_max: bool = False):
    """A finite real in the interval, NumPy scalars and 0-d arrays converted, an exact value kept exact.

    Python ints, floats (``np.float64`` included), ``Fraction`` and other real
    types registered with :mod:`numbers` (such as ``mpmath.mpf``) are
    returned unchanged; NumPy scalars and 0-d arrays are converted by
    :func:`python_scalar`. Bools are refused. The message is that of
    :func:`check_float`.

    >>> check_real("alpha", Fraction(1, 3), 0, 1)
    Fraction(1, 3)
    """
    value = python_scalar(value)
    ok = not isinstance(value, bool) and isinstance(value, numbers.Real)
    if not (ok and _finite_in(value, minimum, maximum, open_min, open_max)):
        raise _real_error(name, value, minimum, maximum, open_min, open_max)
    return value


def check_float_like(name: str, value, minimum: float | None = None, maximum: float | None = None, *,
                     open_min: bool = False, open_max: bool = False) -> float:
    """:func:`check_float` that also takes 0-d arrays; returns a Python float (store it)."""
    return check_float(name, python_scalar(value), minimum, maximum, open_min=open_min, open_max=open_max)


def check_bool_like(name: str, value) -> bool:
    """:func:`check_bool` that also takes ``np.bool_`` and 0-d bool arrays; returns a Python bool (store it)."""
    return check_bool(name, python_scalar(value))


def _range(minimum, maximum) -> str:
    if minimum is not None and maximum is not None:
        return f"in [{minimum}, {maximum}]"
    if minimum is not None:
        return f">= {minimum}"
    if maximum is not None:
        return f"<= {maximum}"
    return ""
