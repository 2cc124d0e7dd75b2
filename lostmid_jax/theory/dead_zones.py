"""The dead zone of a Step-0 influence row: the positions whose density falls below a threshold.

    from lostmid_jax import theory
    row = theory.log_influence_row(128, 16, 0.5)      # [L] log w_j
    theory.dead_zone(row)                             # {"dead_fraction": 0.57, "dead_x_min": 0.44, ...}

A position j < L is dead when its density L w_j (uniform = 1) is below
``dead_below`` (default 0.01; docs/theory.md §4). The last position j = L
(the recency delta) is never counted. Positions are 1-based, x = j / L.
"""

from __future__ import annotations

import math

import numpy as np

DEAD_BELOW = 1e-2
"""Default threshold on the density L w_j."""

_LN10 = math.log(10.0)


def dead_zone(log_row, dead_below: float = DEAD_BELOW) -> dict:
    """Dead-zone statistics of a row [L] of log w_j (natural log), last token excluded.

    Args:
      log_row: [L] log w_j, L >= 1 (-inf where w_j = 0, no attention path).
      dead_below: density threshold in (0, 1): j < L is dead when L w_j < dead_below.

    Returns:
      dead_fraction: share of j < L with L w_j < dead_below;
      zero_fraction: share of j < L with w_j = 0 exactly (no path);
      dead_x_min, dead_x_max: extent in x = j/L of the dead positions (nan if none);
      dead_x_mean: their mean x;
      log10_min_density: log10 min_{j<L} L w_j (-inf if a zero).

    Raises:
      ValueError: naming ``log_row`` (not 1-D, empty, NaN or +inf) or ``dead_below`` (outside (0, 1)).
    """
    row = np.asarray(log_row, dtype=np.float64)
    if row.ndim != 1 or row.size == 0:
        raise ValueError(f"log_row must be a 1-D array [L] of log w_j with L >= 1, got shape {row.shape}")
    if np.isnan(row).any() or np.isposinf(row).any():
        raise ValueError("log_row must hold log weights (finite or -inf for a zero weight), got NaN or +inf")
    if isinstance(dead_below, bool) or not isinstance(dead_below, (int, float)) or not 0 < dead_below < 1:
        raise ValueError(f"dead_below must lie in (0, 1), got {dead_below!r}")
    length = row.size
    body = row[:-1]
    x = np.arange(1, length) / length
    dead = body + math.log(length) < math.log(dead_below)
    any_dead = bool(dead.any())
    return {
        "dead_fraction": float(dead.mean()) if body.size else 0.0,
        "zero_fraction": float(np.mean(body == -np.inf)) if body.size else 0.0,
        "dead_x_min": float(x[dead].min()) if any_dead else math.nan,
        "dead_x_max": float(x[dead].max()) if any_dead else math.nan,
        "dead_x_mean": float(x[dead].mean()) if any_dead else math.nan,
        "log10_min_density": (float(body.min()) + math.log(length)) / _LN10 if body.size else math.nan,
    }


__all__ = ["DEAD_BELOW", "dead_zone"]
