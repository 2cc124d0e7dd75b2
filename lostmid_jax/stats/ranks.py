"""Average ranks along the last axis, many rows at once: the values of ``scipy.stats.rankdata(a, axis=-1)``.

    r = average_ranks(a)        # a [..., B] -> float64 [..., B], ranks 1..B, ties share their mean rank

A tie group occupying sorted places s..e (0-based) gets (s + e) / 2 + 1, a multiple of 1/2 below 2^52, so
exact: the values equal scipy's (method "average") bit for bit, whatever order the sort leaves equal
values in. That lets the sort be numpy's unstable default (about 2.5x faster than the stable sort scipy
uses on a [2000, 512] array of bootstrap replicates). A row holding a NaN is all NaN (scipy's
nan_policy="propagate").
"""

from __future__ import annotations

import numpy as np


def average_ranks(a) -> np.ndarray:
    """[..., B] -> float64 [..., B]: the average rank (1..B) of each entry within its row."""
    a = np.asarray(a)
    if a.ndim == 0:
        raise ValueError("a must have at least one axis (the ranked one)")
    size = a.shape[-1]
    if size == 0:
        return np.empty(a.shape, np.float64)
    order = np.argsort(a, axis=-1)
    ordered = np.take_along_axis(a, order, axis=-1)
    starts = np.ones(a.shape, bool)  # the first place of each tie group
    starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    place = np.arange(size)
    if starts.all():  # no ties (the rule for continuous data): the rank is the sorted place + 1
        values = np.broadcast_to(place + 1.0, a.shape)
    else:
        ends = np.ones(a.shape, bool)  # the last place of each tie group
        ends[..., :-1] = starts[..., 1:]
        first = np.maximum.accumulate(np.where(starts, place, 0), axis=-1)
        last = np.minimum.accumulate(np.where(ends, place, size - 1)[..., ::-1], axis=-1)[..., ::-1]
        values = (first + last) / 2 + 1
    ranks = np.empty(a.shape, np.float64)
    np.put_along_axis(ranks, order, values, axis=-1)
    if np.issubdtype(a.dtype, np.inexact):
        ranks[np.isnan(a).any(axis=-1)] = np.nan
    return ranks


__all__ = ["average_ranks"]
