"""A paired difference of means with its 95% bootstrap interval, and the verdict it supports.

Shapes: E paired units (examples, seeds); a and b hold one value per unit.

    d = paired_difference(a, b)       # mean of a_e - b_e, its 95% CI over units, E
    d.verdict("middle", "the ends")   # "middle worse than the ends" / "... better ..." /
                                      # "no difference beyond noise"

Formula: d_e = a_e - b_e for e = 1..E (units with a non-finite value in
either array are dropped, and counted); the point estimate is
dbar = (1/E) sum_e d_e. The interval is the expanded basic bootstrap over
units of :mod:`.agreement` (the same intervals every comparison of the
package shares): ``n_boot`` resamples of E units with replacement (drawn
as multinomial counts of the distinct d values, the same law) give means d*, c = median d*, and with k = sqrt(E / (E - 1)) t(0.975, E - 1) / z(0.975)

    (2 dbar - c - k (Q*(0.975) - c),  2 dbar - c - k (Q*(0.025) - c)).

Resampling whole units keeps the pairing (both values of a unit move
together), so the interval is a paired one. Its coverage on synthetic
paired binary data with a known difference is measured in
tests/stats/test_paired.py. The verdict: "worse" when the whole interval
lies below 0, "better" when above, else "no difference beyond noise".
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..validation import check_int
from .agreement import _basic_ci


@dataclasses.dataclass(frozen=True, kw_only=True)
class PairedDifference:
    """mean(a - b) over paired units with its 95% interval.

    Attributes:
      mean: dbar, the mean paired difference.
      lo, hi: the 95% bootstrap interval (module docstring).
      units: E, the units with both values finite.
      dropped: units left out for a non-finite value.
    """

    mean: float
    lo: float
    hi: float
    units: int
    dropped: int = 0

    @property
    def sign(self) -> int:
        """-1 when the interval lies below 0, +1 above, 0 when it holds 0 (or is NaN)."""
        if self.hi < 0:
            return -1
        if self.lo > 0:
            return 1
        return 0

    def verdict(self, a: str = "a", b: str = "b", *, higher_is_better: bool = True) -> str:
        """One phrase: "<a> worse than <b>", "<a> better than <b>" or "no difference beyond noise"."""
        if self.sign == 0:
            return "no difference beyond noise"
        better = (self.sign > 0) == higher_is_better
        return f"{a} {'better' if better else 'worse'} than {b}"


def _resampled_means(d: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """[n_boot] means of resamples of d with replacement. A resample's count of each distinct value is
    multinomial (E draws, the values' frequencies), so drawing those counts is the same law as drawing
    E units, and costs O(distinct values) per replicate (few for right / wrong outcomes)."""
    values, counts = np.unique(d, return_counts=True)
    draws = np.random.default_rng(seed).multinomial(d.size, counts / d.size, size=n_boot)  # [n_boot, U]
    return draws @ values / d.size


def paired_difference(a, b, *, n_boot: int = 2000, seed: int = 0) -> PairedDifference:
    """mean(a_e - b_e) over paired units e with its 95% expanded basic bootstrap interval (module docstring).

    Args:
      a, b: [E] one value per unit each (same E); non-finite pairs are dropped.
      n_boot: bootstrap replicates (>= 100).
      seed: their random seed.

    Raises:
      ValueError: a or b not 1-D of the same length, or fewer than 2 finite pairs.
    """
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"a and b must be 1-D arrays of the same length, got shapes {a.shape} and {b.shape}")
    n_boot = check_int("n_boot", n_boot, 100)
    keep = np.isfinite(a) & np.isfinite(b)
    d = (a - b)[keep]
    if d.size < 2:
        raise ValueError(f"a and b must hold >= 2 paired finite values for an interval, got {d.size}")
    mean = float(d.mean())
    if np.all(d == d[0]):  # no spread: every resample gives the same mean
        lo = hi = mean
    else:
        reps = _resampled_means(d, n_boot, seed)
        lo, hi = _basic_ci(mean, reps, -math.inf, math.inf, d.size)
    return PairedDifference(mean=mean, lo=lo, hi=hi, units=int(d.size), dropped=int((~keep).sum()))


__all__ = ["PairedDifference", "paired_difference"]
