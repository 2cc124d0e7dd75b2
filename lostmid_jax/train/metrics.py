"""Scalar summaries of an influence profile n_j (j = 0..L-1) used in snapshots.

    valley_depth   log10( n_{L-1} / mean_{j in valley band} n_j )
                   valley band = 0.35 L <= j <= 0.65 L (VALLEY_BAND), more than 2
                   positions from any document boundary. Larger = deeper relative
                   valley (the bottom of the U weaker against the recency anchor).
    boundary_spike mean over interior boundaries b of
                   log10( n_b / median_{0 < |j - b| <= w} n_j ):
                   > 0 when document starts stand out of their neighbourhood.
    doc_u          per document c = [s, e) of N = e - s positions, e
                   capped at L - 1 so the output position itself is left out:
                   log10( sqrt(start_c end_c) / middle_c ), start_c / end_c the
                   mean n over the w = max(1, round(0.1 N)) positions after the
                   BOS at s (that one is the boundary spike's) / before e, and
                   middle_c over the valley band 0.35 <= (j - s)/(N - 1) <= 0.65.
                   > 0: a U inside the document (both edges above its middle).

The middle of a profile (x = 1/2) and its band (band < x < 1 - band) are defined
once, in :mod:`lostmid_jax.theory.middle`. The valley band is a different band on
purpose and is named for it: the central 30% around x = 1/2
(:data:`~lostmid_jax.theory.middle.MIDDLE_X` +- 0.15), narrower than the theory's
middle band (0.1, 0.9) whose flanks already climb toward primacy and recency, so
the valley is measured at the bottom of the U; its positions are 0-based
(j / L for j = 0..L-1, where the theory has j = 1..L) and it leaves out
positions next to document boundaries. The stored columns <pathway>_valley and
<pathway>_doc_u are defined with it.
"""

from __future__ import annotations

import numpy as np

from .._moved import old_names
from ..theory.middle import MIDDLE_X

VALLEY_BAND = (MIDDLE_X - 0.15, MIDDLE_X + 0.15)
"""(lo, hi) = (0.35, 0.65): the valley band over relative position (see the module docstring)."""


def _norms(norms) -> np.ndarray:
    n = np.asarray(norms, np.float64)
    if n.ndim != 1 or n.size < 3 or not np.all(np.isfinite(n)) or np.any(n < 0):
        raise ValueError("norms must be a 1-D array of >= 3 finite values >= 0")
    return n


def valley_band_mask(length: int, boundaries, *, lo: float = VALLEY_BAND[0], hi: float = VALLEY_BAND[1],
                     guard: int = 2) -> np.ndarray:
    """[L] bool: the valley band lo L <= j <= hi L (j = 0..L-2), minus ``guard`` positions around each
    boundary; the single position j = L // 2 when nothing is left."""
    j = np.arange(length)
    mask = (j >= lo * length) & (j <= hi * length) & (j < length - 1)
    for b in np.asarray(boundaries, int):
        mask &= np.abs(j - b) > guard
    if not mask.any():
        mask = j == length // 2
    return mask


def valley_depth(norms, boundaries=()) -> float:
    """log10 of recency (last position) over the mean influence in the valley band."""
    n = _norms(norms)
    mid = n[valley_band_mask(n.size, boundaries)].mean()
    return float(np.log10(n[-1] / mid)) if mid > 0 and n[-1] > 0 else float("nan")


def boundary_spike(norms, boundaries, *, window: int = 8) -> float:
    """Mean log10 ratio of the influence at interior boundaries to their neighbours' median (NaN if none)."""
    n = _norms(norms)
    vals = []
    for b in np.asarray(boundaries, int):
        if b <= 0 or b >= n.size - 1:
            continue
        nb = np.r_[n[max(0, b - window):b], n[b + 1:min(n.size - 1, b + window + 1)]]
        med = np.median(nb) if nb.size else 0.0
        if med > 0 and n[b] > 0:
            vals.append(np.log10(n[b] / med))
    return float(np.mean(vals)) if vals else float("nan")


def pathway_norm(norms) -> float:
    """Frobenius norm over all positions: sqrt(sum_j n_j^2)."""
    return float(np.sqrt(np.sum(np.square(_norms(norms)))))


def doc_u_profile(norms, boundaries, *, edge: float = 0.1, lo: float = VALLEY_BAND[0], hi: float = VALLEY_BAND[1],
                  min_length: int = 5) -> np.ndarray:
    """[C] document-local U depth of each document (see module docstring); NaN for
    documents shorter than ``min_length`` positions or with a zero mean."""
    n = _norms(norms)
    if isinstance(min_length, bool) or not isinstance(min_length, int) or min_length < 3:
        raise ValueError(f"min_length must be an int >= 3, got {min_length!r}")
    if not 0 < edge < lo <= hi < 1 - edge:
        raise ValueError(f"need 0 < edge < lo <= hi < 1 - edge, got edge={edge}, lo={lo}, hi={hi}")
    starts = sorted({int(b) for b in np.asarray(boundaries, int) if 0 <= b < n.size - 1} | {0})
    out = []
    for s, nxt in zip(starts, starts[1:] + [n.size - 1]):
        if nxt - s < min_length:
            out.append(np.nan)
            continue
        w, u = max(1, round(edge * (nxt - s))), np.arange(nxt - s) / (nxt - s - 1)
        middle = n[s:nxt][(u >= lo) & (u <= hi)]
        start, end, mid = n[s + 1:s + 1 + w].mean(), n[nxt - w:nxt].mean(), middle.mean() if middle.size else 0.0
        out.append(np.log10(np.sqrt(start * end) / mid) if min(start, end, mid) > 0 else np.nan)
    return np.array(out, np.float64)


def doc_u(norms, boundaries, **kw) -> float:
    """Mean over documents of :func:`doc_u_profile` (NaN if none is defined)."""
    u = doc_u_profile(norms, boundaries, **kw)
    return float(np.nanmean(u)) if np.isfinite(u).any() else float("nan")


__getattr__ = old_names(__name__)  # middle_mask: lostmid_jax._moved.NAMES (warns once, for one release)
