"""Validation, normalization and binning of profile ensembles, shared by agreement, misfit and heldout.

Shapes: S rows, L positions (1-based j, x = j / L), B bins. Position j falls in bin
b = ceil(j B / L) (equal bins ((b-1)/B, b/B] of x); p_s,j = n_s,j / sum_i n_s,i.
"""

from __future__ import annotations

import numpy as np

from ..validation import check_int


def check_profiles(name: str, value, ndim: tuple[int, ...]) -> np.ndarray:
    """float64 array of ``ndim`` dimensions, non-empty, finite, >= 0, every row summing to > 0 (else ValueError)."""
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim not in ndim:
        want = " or ".join(f"{d}-D" for d in ndim)
        raise ValueError(f"{name} must be {want}, got shape {arr.shape}")
    if arr.shape[-1] < 1 or (arr.ndim == 2 and arr.shape[0] < 1):
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite: {int(np.sum(~np.isfinite(arr)))} NaN or inf entries")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be >= 0 (a profile is a mass over positions): {int(np.sum(arr < 0))} "
                         "negative entries")
    sums = arr.sum(axis=-1)
    if np.any(sums <= 0):
        raise ValueError(f"{name} must have a positive sum in every row")
    return arr


def bin_matrix(length: int, bins: int) -> np.ndarray:
    """[L, B] 0/1 matrix: position j (1-based) -> bin ceil(j B / L) (equal bins of x = j/L)."""
    j = np.arange(1, length + 1)
    b = (j * bins + length - 1) // length - 1  # ceil(j B / L) - 1, exact in integers
    out = np.zeros((length, bins))
    out[np.arange(length), b] = 1.0
    return out


def normalized(profiles: np.ndarray, bins: int | None) -> np.ndarray:
    """Rows [..., L] -> p = n / sum n, summed into ``bins`` equal bins of x (None or L: raw): [..., B]."""
    p = profiles / profiles.sum(axis=-1, keepdims=True)
    length = p.shape[-1]
    return p if bins is None or bins == length else p @ bin_matrix(length, bins)


def profiles_and_reference(profiles, reference, bins: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Validated, normalized and binned (profiles [S, B], reference [B] or paired [S, B]).

    Raises:
      ValueError: profiles not 2-D; reference not [L] or [S, L]; bins outside 1..L; NaN or inf;
        negative entries; a row summing to 0.
    """
    p_raw = check_profiles("profiles", profiles, (2,))
    ref_raw = check_profiles("reference", reference, (1, 2))
    rows, length = p_raw.shape
    if ref_raw.shape[-1] != length or (ref_raw.ndim == 2 and ref_raw.shape[0] != rows):
        raise ValueError(f"reference must have shape [L] or [S, L] = [{length}] or [{rows}, {length}] to match "
                         f"profiles, got {list(ref_raw.shape)}")
    size = length if bins is None else check_int("bins", bins, 1, length)
    return normalized(p_raw, size), normalized(ref_raw, size)
