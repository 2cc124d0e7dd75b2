"""Valley statistics of measured profiles: the practitioners' power law with its CI, and when it does not apply.

Shapes: S rows (examples or seeds), L positions (1-based j, x = j / L).

    v = valley_fit(rows)         # rows [S, L] (or one profile [L]): fit on the mean, CI over rows
    v.alpha, v.alpha_ci, v.r2    # score(pos) ~ beta |pos - L/2|^(-alpha), alpha = PowerLawFit.c
    v.describes, v.reason        # does the power law describe this profile? (the rule below)
    v.u                          # the toolkit's U statistics of the mean profile (stats.profile_metrics)
    valley_depth(profile)        # V = ln(mean p over the end bands / mean p over the central band)
    depth_ratio(rows_a, rows_b)  # V(mean a) / V(mean b) with its 95% CI over rows (paired when both have rows)

The fit is :func:`.profile_metrics.valley_power_law` (least squares of
log p_j on log |j - L/2| over lo L <= |j - L/2| <= hi L, the last token
excluded) on the mean of the normalized rows, p = (1/S) sum_s n_s / sum_j n_s,j.
Sign: alpha < 0 for a valley (the score rises away from the middle), alpha > 0
for a peak in the middle; practitioners quote |alpha|.

The 95% CI on alpha is the expanded basic bootstrap over rows of
:func:`.agreement.row_bootstrap_ci` (each replicate refits the mean of S
resampled rows); NaN for one row.

**The rule.** A |pos - L/2| law is symmetric about the middle, so it can only
describe a profile whose two arms follow the same law. It is said to describe
the profile when all three hold (checked in this order):

1. the left arm (j < L/2) and the right arm (j > L/2), fitted alone, bend the
   same way: alpha_left and alpha_right have the same sign, each with
   |alpha| >= ``ALPHA_MIN`` (0.05; flatter is no valley);
2. they agree in size: |alpha_left - alpha_right| <= ``ARM_AGREEMENT`` (0.5)
   times max(|alpha_left|, |alpha_right|);
3. one law explains both arms: the two-sided fit has R^2 >= ``R2_MIN`` (0.8).

A monotone profile (the Step-0 causal row falls from the first token) fails
1: its left arm rises towards the middle while its right arm falls away from
it; a lopsided U fails 2; arms with the same exponent at different heights
fail 3. ``reason`` names the first condition that fails
(tests/stats/test_valley.py checks each).

**Valley depth.** With p the normalized profile, the end bands
E = {j < L : x_j <= band or x_j >= 1 - band} (the last token, the recency
delta, left out) and the central band M = {j : |x_j - 1/2| < band},

    V = ln( mean_{j in E} p_j / mean_{j in M} p_j ),

0 for a flat profile, > 0 when the ends outweigh the middle (a U, or a
profile falling from the first token), < 0 for a peak in the middle.
``depth_ratio(a, b)`` = V(mean of a's rows) / V(mean of b's rows), e.g. how much
of a trained model's valley (b) its architecture had at birth (a); the 95% CI
is :func:`.agreement.row_bootstrap_ci` over rows, resampling the same row
indices of a and b when both hold S rows (paired), only b's when a is one
profile; NaN when V(b) <= 0 (no valley to compare with).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from .agreement import row_bootstrap_ci
from .profile_metrics import PowerLawFit, u_statistics, valley_power_law
from ..validation import check_float, check_int

R2_MIN = 0.8
"""Smallest R^2 of the two-sided log-log fit for the law to describe a profile."""
ALPHA_MIN = 0.05
"""Smallest |alpha| of each arm for it to bend at all (a flatter arm has no valley to describe)."""
ARM_AGREEMENT = 0.5
"""Largest |alpha_left - alpha_right| / max(|alpha_left|, |alpha_right|) for the arms to agree."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class ValleyFit:
    """The power law of a (mean) profile, its arms, a CI on alpha and the verdict of the rule.

    Attributes:
      fit, left, right: PowerLawFit of both arms, the left arm alone and the right arm alone.
      alpha_lo, alpha_hi: 95% bootstrap interval of alpha = fit.c over rows (NaN for one row).
      rows: S, the rows averaged.
      describes: whether the power law describes the profile (module docstring's rule).
      reason: why not ("" when it does).
      u: the U statistics of the mean profile (:func:`.profile_metrics.u_statistics`).
    """

    fit: PowerLawFit
    left: PowerLawFit
    right: PowerLawFit
    alpha_lo: float
    alpha_hi: float
    rows: int
    describes: bool
    reason: str
    u: object

    @property
    def alpha(self) -> float:
        return self.fit.c

    @property
    def alpha_ci(self) -> tuple[float, float]:
        return self.alpha_lo, self.alpha_hi

    @property
    def r2(self) -> float:
        return self.fit.r2


def power_law_rule(fit: PowerLawFit, left: PowerLawFit, right: PowerLawFit) -> tuple[bool, str]:
    """(describes, reason) by the module docstring's three conditions, checked in order."""
    cl, cr = left.c, right.c
    arms = f"alpha_left = {cl:.2f}, alpha_right = {cr:.2f}"
    if max(abs(cl), abs(cr)) < ALPHA_MIN:
        return False, f"flat ({arms}): no valley to describe"
    if cl * cr < 0:
        return False, f"the arms bend opposite ways ({arms}): a monotone profile, not a valley about L/2"
    if min(abs(cl), abs(cr)) < ALPHA_MIN:
        return False, f"one arm is flat ({arms}, |alpha| < {ALPHA_MIN}): not a valley on both sides"
    gap = abs(cl - cr) / max(abs(cl), abs(cr))
    if gap > ARM_AGREEMENT:
        return False, (f"the arms disagree (alpha_left = {cl:.2f}, alpha_right = {cr:.2f}, "
                       f"relative gap {gap:.2f} > {ARM_AGREEMENT}): a lopsided profile")
    if not fit.r2 >= R2_MIN:
        return False, f"R^2 = {fit.r2:.2f} < {R2_MIN}: one |pos - L/2| law does not explain both arms"
    return True, ""


def _rows(profiles) -> np.ndarray:
    rows = np.asarray(profiles, np.float64)
    rows = rows[None] if rows.ndim == 1 else rows
    if (rows.ndim != 2 or rows.shape[1] < 2 or not np.all(np.isfinite(rows)) or np.any(rows < 0)
            or not np.all(rows.sum(axis=1) > 0)):
        raise ValueError("profiles must be [L] or [S, L] finite values >= 0 with every row's sum positive, "
                         f"got shape {rows.shape}")
    return rows / rows.sum(axis=1, keepdims=True)


def valley_fit(profiles, *, lo: float = 0.05, hi: float = 0.45, band: float = 0.1, n_boot: int = 2000,
               seed: int = 0) -> ValleyFit:
    """The power law beta |pos - L/2|^(-alpha) of the mean profile, its 95% CI over rows, and the rule.

    Args:
      profiles: [S, L] one profile per example or seed (or one profile [L]); each row is normalized.
      lo, hi: the fit range in |x - 1/2| (as :func:`.profile_metrics.valley_power_law`).
      band: the U statistics' band width.
      n_boot, seed: bootstrap replicates and seed of the CI on alpha.

    Raises:
      ValueError: bad profiles (named), or a fit range holding fewer than 3 positions on an arm.
    """
    rows = _rows(profiles)
    lo, hi = check_float("lo", lo, 0, 0.5), check_float("hi", hi, 0, 0.5)
    n_boot = check_int("n_boot", n_boot, 1)
    mean = rows.mean(axis=0)
    fit = valley_power_law(mean, lo=lo, hi=hi)
    left = valley_power_law(mean, lo=lo, hi=hi, side="left")
    right = valley_power_law(mean, lo=lo, hi=hi, side="right")

    def alpha(m):
        try:
            return valley_power_law(m, lo=lo, hi=hi).c
        except ValueError:  # a resample with too few positive positions in range
            return math.nan

    ci = row_bootstrap_ci(rows, alpha, n_boot=n_boot, seed=seed) if rows.shape[0] >= 2 else (math.nan, math.nan)
    describes, reason = power_law_rule(fit, left, right)
    return ValleyFit(fit=fit, left=left, right=right, alpha_lo=ci[0], alpha_hi=ci[1], rows=rows.shape[0],
                     describes=describes, reason=reason, u=u_statistics(mean, band=band))


def _depth_bands(length: int, band: float) -> tuple[np.ndarray, np.ndarray]:
    x = np.arange(1, length + 1) / length
    ends = ((x <= band) | (x >= 1 - band)) & (np.arange(length) < length - 1)
    middle = np.abs(x - 0.5) < band
    if not ends.any() or not middle.any():
        raise ValueError(f"band={band} leaves an empty end or central band at L={length}")
    return ends, middle


def valley_depth(profile, *, band: float = 0.1) -> float:
    """V = ln(mean over the end bands / mean over the central band) of the normalized profile [L] (docstring)."""
    p = _rows(profile)[0]
    ends, middle = _depth_bands(p.size, check_float("band", band, 0, 0.5, open_min=True, open_max=True))
    top, bottom = p[ends].mean(), p[middle].mean()
    if not (top > 0 and bottom > 0):
        return math.inf if top > 0 else (-math.inf if bottom > 0 else math.nan)
    return float(np.log(top / bottom))


def depth_ratio(numerator, denominator, *, band: float = 0.1, n_boot: int = 2000,
                seed: int = 0) -> tuple[float, float, float]:
    """(V(a) / V(b), lo, hi): the valley depth of ``numerator`` over that of ``denominator`` with its 95% CI.

    Args:
      numerator: [S, L] rows (paired with the denominator's rows) or one profile [L].
      denominator: [S, L] rows, S >= 2.
      band, n_boot, seed: the bands' width; the bootstrap's replicates and seed.

    The ratio is NaN (and its CI) when V of the denominator's mean is <= 0 or not finite.
    """
    a, b = _rows(numerator), _rows(denominator)
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"numerator and denominator must have the same length L, got {a.shape[1]} and {b.shape[1]}")
    if a.shape[0] not in (1, b.shape[0]) or b.shape[0] < 2:
        raise ValueError(f"denominator must hold >= 2 rows and numerator 1 row or as many, got {a.shape[0]} and "
                         f"{b.shape[0]}")

    def ratio(va: float, vb: float) -> float:
        return va / vb if math.isfinite(va) and math.isfinite(vb) and vb > 0 else math.nan

    point = ratio(valley_depth(a.mean(0), band=band), valley_depth(b.mean(0), band=band))
    if not math.isfinite(point):
        return math.nan, math.nan, math.nan
    if a.shape[0] == 1:
        fixed = valley_depth(a[0], band=band)
        lo, hi = row_bootstrap_ci(b, lambda m: ratio(fixed, valley_depth(m, band=band)), n_boot=n_boot, seed=seed)
    else:
        lo, hi = row_bootstrap_ci((a, b), lambda m: ratio(valley_depth(m[0], band=band), valley_depth(m[1], band=band)),
                                  n_boot=n_boot, seed=seed)
    return point, lo, hi


__all__ = ["ALPHA_MIN", "ARM_AGREEMENT", "R2_MIN", "ValleyFit", "depth_ratio", "power_law_rule", "valley_depth", "valley_fit"]
