"""Argument checks at the analysis package's public boundary (ValueError naming the argument).

Thin wrappers over lostmid_jax.validation for the arguments every profile
shares; the messages name the argument and its allowed range.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..validation import check_choice, check_int, check_positive_float

METHODS = ("exact", "randomized", "one-pass", "jacrev")


def check_method(method) -> str:
    return check_choice("method", method, METHODS)


def check_positive_int(name: str, value) -> int:
    return check_int(name, value, 1)


def check_input(x, width: int, *, finite: bool = False):
    """x must be [L, D] with D the model width and L >= 1 (and, with ``finite``, no NaN or inf)."""
    shape = getattr(x, "shape", None)
    dtype = getattr(x, "dtype", None)
    if shape is not None and dtype is not None and np.issubdtype(np.dtype(dtype), np.integer):
        raise ValueError(f"x must be input embeddings [L, {width}], got integer token ids of shape {tuple(shape)}: "
                         "embed them first, x = model.embed(ids) (ids [L] -> [L, D])")
    if shape is None or len(shape) != 2 or shape[0] < 1 or shape[1] != width:
        raise ValueError(f"x must have shape [L, {width}] (L >= 1), got {shape}")
    if finite:
        bad = ~np.isfinite(np.asarray(x))
        if bad.any():
            raise ValueError(f"x must be finite: {int(bad.sum())} NaN or inf entries (first at "
                             f"{tuple(int(i) for i in np.argwhere(bad)[0])})")
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
    try:
        return check_positive_float("max_memory_gb", value)
    except ValueError:
        raise ValueError(f"max_memory_gb must be a finite number > 0 (GB) or None, got {value!r}") from None


def check_remat(value) -> bool:
    """None (the default, True), True or False."""
    if value is not None and not isinstance(value, bool):
        raise ValueError(f"remat must be None (default: True), True or False, got {value!r}")
    return True if value is None else value


def check_model(model):
    """``model`` must be an nn.Decoder (anything with a DecoderConfig ``cfg``)."""
    from ..nn.config import DecoderConfig

    if not isinstance(getattr(model, "cfg", None), DecoderConfig):
        raise ValueError(f"model must be an nn.Decoder, got {type(model).__name__}")
    return model
