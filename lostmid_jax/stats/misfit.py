"""The one misfit test: relative residuals of the profile against a reference, calibrated by sign flips of seeds.

Shapes: S rows (seeds), L positions (1-based j, x = j / L), B bins.

    m = misfit_test(profiles, reference)   # profiles [S, L], reference [L] or paired [S, L]
    m.reduced, m.dof, m.p_value            # T / dof (about 1 within independent noise), sign-flip p-value
    m.columns()                            # {"chi2_dof": ..., "dof": ..., "p_misfit": ...}

Every table that reports a misfit (Step-0 metrics.csv and agreement.csv, the
Step-0 study's variants.csv) writes these columns (:func:`misfit_columns`).
Formulas in :func:`misfit_test`.
"""

from __future__ import annotations

import dataclasses
import math

import itertools

import numpy as np

from ..validation import check_int
from ._profiles import bin_matrix, profiles_and_reference


MISFIT_BINS = 16  # coarsest binning the test runs on (finer bins: see misfit_test)
FLIPS = 4096  # sign patterns: every one of the 2^(S-1) when that is fewer, else a random sample


@dataclasses.dataclass(frozen=True)
class Misfit:
    """Relative residuals of the profile against a reference, calibrated by flipping the signs of whole seeds.

    Attributes:
      chi2: T = S sum_b dbar_b^2 / m2_b (:func:`misfit_test`); about chi^2_dof when the bins are
        independent and the reference is right.
      dof: bins used, less 1 (both sides are distributions) and less the parameters fitted to the profile.
      p_value: the sign-flip p-value P(T* >= T) (the calibration; not the chi^2 tail).
      min_p: the smallest p-value the seeds can give (2 / 2^S: a test with min_p >= 0.05 cannot reject).
      bins: bins the test ran on.
    """

    chi2: float
    dof: int
    p_value: float
    min_p: float = math.nan
    bins: int = 0

    @property
    def reduced(self) -> float:
        """chi2 / dof (about 1 when the reference is right up to independent noise)."""
        return self.chi2 / self.dof if self.dof > 0 else math.nan

    def can_reject(self, alpha: float = 0.05) -> bool:
        """Whether these seeds could give p < alpha at all."""
        return self.min_p < alpha

    def columns(self, suffix: str = "") -> dict:
        """Flat CSV columns chi2_dof{suffix} (= reduced), dof{suffix}, p_misfit{suffix}."""
        return misfit_columns(self, suffix)


def _sign_patterns(rows: int, flips: int, seed: int) -> tuple[np.ndarray, bool]:
    """[n, S] signs with the first column +1 (T(e) = T(-e)); every pattern when 2^(S-1) <= flips."""
    if rows - 1 <= math.log2(flips):
        grid = np.array(list(itertools.product((1.0, -1.0), repeat=rows - 1))).reshape(-1, rows - 1)
        return np.hstack([np.ones((grid.shape[0], 1)), grid]), True
    signs = np.random.default_rng(seed).choice((1.0, -1.0), size=(flips, rows))
    signs[:, 0] = 1.0
    return signs, False


def misfit_test(profiles, reference, *, bins: int | None = None, fitted: int = 0, flips: int = FLIPS,
                seed: int = 0) -> Misfit:
    """Whether the reference misses the mean profile by more than the seeds' own spread (a systematic misfit).

    With p_s the normalized rows summed into B' = min(B, MISFIT_BINS) equal bins of x [S, B'] and q the
    reference normalized the same way (or paired rows q_s), the relative residual of seed s is
    d_s,b = p_s,b / q_b - 1 (sum_b q_b d_s,b = 0), and

        T = S sum_b dbar_b^2 / m2_b,   dbar_b = (1/S) sum_s d_s,b,   m2_b = (1/S) sum_s d_s,b^2.

    Under "the reference is the expected profile" the seeds' residual vectors are independent with mean
    0, so flipping the sign of whole seeds leaves their law unchanged when it is symmetric: the p-value
    is the share of sign patterns e with T(e) >= T (every pattern when 2^(S-1) <= flips, else a random
    sample, p = (1 + #) / (1 + flips)). m2_b does not change under flips, so T is studentized without
    assuming independent positions or normal errors: noise shared across positions by a seed
    (seed-correlated), heavy tails and probe noise keep the false-alarm rate near its level
    (tests/stats/test_misfit.py measures it). Skewed per-bin noise makes the test anti-conservative
    when bins are many; hence at most MISFIT_BINS bins. With S seeds the smallest p is 2 / 2^S
    (S <= 5 cannot reject at 5%).

    Args:
      profiles: [S, L] (S >= 2), non-negative, finite.
      reference: [L] or paired [S, L] (same seeds, e.g. RoPE off).
      bins: None (raw positions) or B equal bins of x; the test coarsens to at most MISFIT_BINS.
      fitted: parameters of the reference fitted to this profile (reported in dof; the test is then
        conservative).
      flips: sign patterns sampled when there are more.
      seed: seed of the sampled patterns.
    """
    p, q = profiles_and_reference(profiles, reference, bins)
    rows, width = p.shape
    if rows < 2:
        raise ValueError(f"profiles must have >= 2 rows (seeds) for a misfit test, got {rows}")
    fitted = check_int("fitted", fitted, 0)
    flips = check_int("flips", flips, 1)
    if width > MISFIT_BINS:
        coarse = bin_matrix(width, MISFIT_BINS)
        p, q = p @ coarse, q @ coarse
    with np.errstate(divide="ignore", invalid="ignore"):
        d = p / q - 1.0
    keep = np.all(np.isfinite(d), axis=0)
    d = d[:, keep]
    m2 = (d ** 2).mean(0)
    d, m2 = d[:, m2 > 0], m2[m2 > 0]
    dof = d.shape[1] - 1 - fitted
    min_p = 2.0 / 2.0 ** rows
    if dof < 1:
        return Misfit(math.nan, max(dof, 0), math.nan, min_p, p.shape[1])
    signs, exact = _sign_patterns(rows, flips, seed)
    t_all = rows * (((signs @ d) / rows) ** 2 / m2).sum(1)  # [n]; row 0 is the identity pattern
    t0 = float(rows * ((d.mean(0)) ** 2 / m2).sum())
    hits = int(np.sum(t_all >= t0 * (1 - 1e-12)))
    p_value = hits / signs.shape[0] if exact else (1 + hits) / (1 + signs.shape[0])
    return Misfit(t0, dof, float(p_value), min_p if exact else max(min_p, 1.0 / (1 + flips)), p.shape[1])


log_misfit = misfit_test  # the name of the earlier chi^2 test (kept for one release)


def misfit_columns(misfit: Misfit | None, suffix: str = "") -> dict:
    """{chi2_dof{suffix}: chi2 / dof, dof{suffix}: dof, p_misfit{suffix}: p}; NaN, None, NaN for None (no misfit)."""
    return {f"chi2_dof{suffix}": misfit.reduced if misfit else math.nan, f"dof{suffix}": misfit.dof if misfit else None,
            f"p_misfit{suffix}": misfit.p_value if misfit else math.nan}


__all__ = ["MISFIT_BINS", "Misfit", "log_misfit", "misfit_columns", "misfit_test"]
