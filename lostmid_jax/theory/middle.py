"""The position convention and the middle of a profile (one definition for the package).

Positions are 1-based, j = 1..L, at x_j = j / L in (0, 1]; an array [L]
holds position j at index j - 1. The last position j = L (x = 1) carries the
recency delta (the residual-only path).

The middle of a profile is x = 1/2:

* a discrete row is read there at j_mid = max(1, floor(L / 2)), the last
  position with x <= 1/2 (x_mid = j_mid / L);
* distances from the middle are |x_j - 1/2| = |j - L/2| / L;
* the bands over x (width ``band``, 0.1 by default) partition the mass:

      primacy  x <= band
      middle   band < x < 1 - band
      late     1 - band <= x, j < L
      recency  j = L

>>> positions(4)
array([0.25, 0.5 , 0.75, 1.  ])
>>> middle_index(5), middle_index(1)
(2, 1)
>>> band_masks(10, 0.2).middle.astype(int)
array([0, 0, 1, 1, 1, 1, 1, 0, 0, 0])
"""

from __future__ import annotations

import dataclasses

import numpy as np

from . import _costs
from ._validate import check_band, check_length

MIDDLE_X = 0.5
"""x of the middle of the context."""


def positions(length: int) -> np.ndarray:
    """x_j = j / L for j = 1..L: float64 [L]."""
    length = check_length(length)
    _costs.check_positions(length, arrays=2)
    return np.arange(1, length + 1) / length


def middle_index(length: int) -> int:
    """j_mid = max(1, floor(L / 2)): the 1-based position where a row's middle is read."""
    return max(1, check_length(length) // 2)


def distance_from_middle(length: int) -> np.ndarray:
    """|j - L/2| for j = 1..L, in positions (= L |x_j - 1/2|): float64 [L]."""
    length = check_length(length)
    _costs.check_positions(length, arrays=3)
    return np.abs(np.arange(1, length + 1, dtype=np.float64) - MIDDLE_X * length)


@dataclasses.dataclass(frozen=True)
class ProfileBands:
    """Boolean masks [L] of the four bands (they partition j = 1..L)."""

    primacy: np.ndarray
    middle: np.ndarray
    late: np.ndarray
    recency: np.ndarray


def band_masks(length: int, band: float = 0.1) -> ProfileBands:
    """The primacy / middle / late / recency bands of a row of L positions.

    Args:
      length: L >= 1.
      band: width in x of the primacy and late bands, in (0, 0.5).
    """
    band = check_band(band)
    _costs.check_positions(check_length(length), arrays=4)
    x = positions(length)
    body = x < 1.0  # all but the last token
    primacy = x <= band
    late = (x >= 1.0 - band) & body
    middle = ~primacy & ~late & body
    return ProfileBands(primacy=primacy, middle=middle, late=late, recency=~body)


def middle_mask(length: int, band: float = 0.1) -> np.ndarray:
    """[L] bool: the middle band, band < x_j < 1 - band (never the last position)."""
    return band_masks(length, band).middle
