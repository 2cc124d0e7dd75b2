"""Means over seeds (or any replicates) with their error: standard error and 95% t intervals.

Shapes: S replicates along axis 0.

    mean_sem(values)          # (mean, SE = sd / sqrt(S)) of the finite values
"""

from __future__ import annotations

import numpy as np


def mean_sem(values) -> tuple[float, float]:
    """(mean, SE = sample std / sqrt(n)) of the finite values; SE is NaN for one value, both NaN for none.

    >>> mean_sem([1.0, 3.0, float("nan")])
    (2.0, 1.0)
    """
    v = np.asarray([x for x in values if np.isfinite(x)], np.float64)
    if v.size == 0:
        return float("nan"), float("nan")
    return float(v.mean()), float(v.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else float("nan")


__all__ = ["mean_sem"]
