"""Comparison metrics for influence profiles over positions j = 1..L.

Positions follow the package convention (1-based j, x_j = j / L;
:mod:`lostmid_jax.theory.middle`, which also defines the middle x = 1/2).
Normalization: a profile n_j >= 0 (e.g. ||d y_L / d x_j||_F, or a theory row
w_j) becomes a distribution over x_j = j / L in (0, 1] by

    p_j = n_j / sum_i n_i.

Every metric here is invariant to rescaling n, so a measured profile and a
theory row (which sums to 1) compare directly.

- Spearman rank correlation of the two profiles (scipy.stats.spearmanr).
- Wasserstein-1 distance on [0, 1] between sum_j p_j delta(x_j) and
  sum_j q_j delta(x_j) (scipy.stats.wasserstein_distance; = integral of
  |F_p - F_q| dx, in units of the whole context).
- U statistics: theory.summarize_log_row on log p (recency / primacy /
  middle / late masses, valley, log10 peak-to-trough).
- Valley power law score(pos) ~ b |pos - L/2|^(-c): ordinary least squares of
  log score on log |pos - L/2| over the positions with lo L <= |pos - L/2| <= hi L
  (default 0.05 <= |x - 1/2| <= 0.45), the last token (recency delta)
  excluded.
- log10 peak-to-trough: log10(max_j p_j / min_j p_j) over the positive p_j.
- Score fraction: the median over rows and j < L of ||J_score|| / ||J_total|| (0 where the total is 0).

Pure numpy/scipy (the position convention and the U summary are theory's,
:mod:`lostmid_jax.theory.middle` and :func:`lostmid_jax.theory.summarize_log_row`).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import stats

from .. import theory
from ..validation import check_choice, check_float


def _profile(name: str, values) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1 or arr.size < 2 or not np.all(np.isfinite(arr)) or np.any(arr < 0) or not arr.sum() > 0:
        raise ValueError(f"{name} must be a 1-D array of >= 2 finite values >= 0 with a positive sum")
    return arr


def _pair(a, b) -> tuple[np.ndarray, np.ndarray]:
    a, b = _profile("a", a), _profile("b", b)
    if a.shape != b.shape:
        raise ValueError(f"a and b must have the same length, got {a.size} and {b.size}")
    return a, b


positions = theory.positions  # x_j = j / L for j = 1..L: [L]


def to_distribution(profile) -> np.ndarray:
    """p_j = n_j / sum_i n_i: [L] -> [L], sums to 1."""
    n = _profile("profile", profile)
    return n / n.sum()


def spearman(a, b) -> float:
    """Spearman rank correlation of two profiles [L] (ties get average ranks; NaN if either is constant)."""
    a, b = _pair(a, b)
    if np.all(a == a[0]) or np.all(b == b[0]):
        return float("nan")
    return float(stats.spearmanr(a, b).statistic)


def wasserstein(a, b) -> float:
    """Wasserstein-1 distance on [0, 1] between the normalized profiles at x_j = j / L."""
    a, b = _pair(a, b)
    x = positions(a.size)
    return float(stats.wasserstein_distance(x, x, a / a.sum(), b / b.sum()))


def u_statistics(profile, *, band: float = 0.1) -> theory.ProfileSummary:
    """theory.summarize_log_row of log p (zeros become -inf)."""
    p = to_distribution(profile)
    with np.errstate(divide="ignore"):
        return theory.summarize_log_row(np.log(p), band=band)


@dataclasses.dataclass(frozen=True, kw_only=True)
class PowerLawFit:
    """score(pos) ~ b |pos - L/2|^(-c), fitted by least squares in log-log.

    Attributes:
      b, c: the fitted prefactor and exponent (c < 0: rising away from the
        middle, a U; c > 0: a peak in the middle).
      r2: coefficient of determination of the log-log fit.
      points: number of positions used.
      lo, hi: the fitted range lo <= |x - 1/2| <= hi, x = pos / L.
    """

    b: float
    c: float
    r2: float
    points: int
    lo: float
    hi: float


def valley_power_law(profile, *, lo: float = 0.05, hi: float = 0.45, side: str = "both") -> PowerLawFit:
    """Fit score(pos) ~ b |pos - L/2|^(-c) to the normalized profile p (pos = j, 1-based).

    Args:
      profile: [L] non-negative scores.
      lo, hi: fit range in |x - 1/2|, 0 <= lo < hi <= 0.5.
      side: "both" arms of the U, or only the "left" (x < 1/2) or "right" one.

    The last token is always excluded (it is the residual-only recency
    delta, not part of the smooth valley), as are zero scores.
    """
    p = to_distribution(profile)
    lo, hi = check_float("lo", lo, 0, 0.5), check_float("hi", hi, 0, 0.5)
    if not lo < hi:
        raise ValueError(f"lo and hi must satisfy 0 <= lo < hi <= 0.5, got lo={lo!r}, hi={hi!r}")
    side = check_choice("side", side, ("both", "left", "right"))
    length = p.size
    j = np.arange(1, length + 1, dtype=np.float64)
    middle = theory.MIDDLE_X * length  # L/2, in positions
    dist = theory.distance_from_middle(length)
    keep = (dist >= lo * length) & (dist <= hi * length) & (j < length) & (p > 0) & (dist > 0)
    if side != "both":
        keep &= (j < middle) if side == "left" else (j > middle)
    if keep.sum() < 3:
        raise ValueError(f"the range lo={lo}, hi={hi} (side={side!r}) holds {int(keep.sum())} positions; need >= 3")
    lx, ly = np.log(dist[keep]), np.log(p[keep])
    slope, intercept = np.polyfit(lx, ly, 1)
    resid = ly - (intercept + slope * lx)
    ss_tot = float(np.sum((ly - ly.mean()) ** 2))
    r2 = 1.0 - float(np.sum(resid**2)) / ss_tot if ss_tot > 0 else 1.0
    return PowerLawFit(b=float(np.exp(intercept)), c=float(-slope), r2=r2, points=int(keep.sum()), lo=float(lo), hi=float(hi))


def log10_peak_to_trough(profile) -> float:
    """log10(max / min) of the positive entries of a profile [L] (NaN when none is positive)."""
    p = np.asarray(profile)
    positive = p[p > 0]
    return float(np.log10(positive.max() / positive.min())) if positive.size else math.nan


def log10_peak_to_trough_rows(profiles) -> np.ndarray:
    """:func:`log10_peak_to_trough` of each row of [n, L]: [n]."""
    positive = np.where(profiles > 0, profiles, np.nan)
    with np.errstate(invalid="ignore"):
        return np.log10(np.nanmax(positive, axis=1) / np.nanmin(positive, axis=1))


PROFILE_STATISTICS = ("recency_weight", "primacy_mass", "middle_mass", "valley_x", "valley_c", "valley_r2")
"""The statistics of :func:`profile_statistics`."""
PROFILE_STATISTIC_BOUNDS = {"recency_weight": (0.0, 1.0), "primacy_mass": (0.0, 1.0), "middle_mass": (0.0, 1.0),
                            "valley_x": (0.0, 1.0), "valley_c": (-math.inf, math.inf), "valley_r2": (-math.inf, 1.0)}
"""The range of each statistic (masses and x in [0, 1]), the clip of its bootstrap interval."""


def profile_statistics(profile, band: float = 0.1) -> dict[str, float]:
    """The U statistics and the valley power law of a profile [L]: {name: value} over PROFILE_STATISTICS
    (valley_c and valley_r2 NaN where the fit range holds fewer than 3 positions)."""
    u = u_statistics(profile, band=band)
    try:
        fit = valley_power_law(profile)
        c, r2 = fit.c, fit.r2
    except ValueError:
        c = r2 = math.nan
    return dict(recency_weight=u.recency_weight, primacy_mass=u.primacy_mass, middle_mass=u.middle_mass,
                valley_x=u.valley_x, valley_c=c, valley_r2=r2)


def score_fraction_median(total, score) -> float:
    """median over rows and j < L of score / total for norms [S, L] (0 where total is 0)."""
    total, score = np.asarray(total), np.asarray(score)
    return float(np.median(np.divide(score, total, out=np.zeros_like(total), where=total > 0)[:, :-1]))
