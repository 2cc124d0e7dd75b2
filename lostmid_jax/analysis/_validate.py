"""Argument checks at the analysis package's public boundary (ValueError naming the argument)."""

from __future__ import annotations

import numbers

METHODS = ("exact", "randomized", "one-pass", "jacrev")


def check_method(method) -> str:
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    return method


def check_positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be an int >= 1, got {value!r}")
    return int(value)


def check_input(x, width: int):
    """x must be [L, D] with D the model width and L >= 1."""
    shape = getattr(x, "shape", None)
    if shape is None or len(shape) != 2 or shape[0] < 1 or shape[1] != width:
        raise ValueError(f"x must have shape [L, {width}] (L >= 1), got {shape}")
    return x


def check_position(position, length: int) -> int:
    """A query position in [-L, L) (negative counts from the end); returns it in [0, L)."""
    if isinstance(position, bool) or not isinstance(position, numbers.Integral) or not -length <= position < length:
        raise ValueError(f"position must be an int in [{-length}, {length}) for L={length}, got {position!r}")
    return int(position) % length


def check_memory_gb(value) -> float | None:
    """None, or a finite number of GB > 0."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < float("inf"):
        raise ValueError(f"max_memory_gb must be a finite number > 0 (GB) or None, got {value!r}")
    return float(value)


def check_remat(value) -> bool | None:
    """None (the model's setting), True or False."""
    if value is not None and not isinstance(value, bool):
        raise ValueError(f"remat must be None (the model's cfg.remat), True or False, got {value!r}")
    return value
