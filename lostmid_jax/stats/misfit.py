"""The one misfit statistic: log-profile residuals against a reference, in units of their standard errors.

Shapes: S rows (seeds), L positions (1-based j, x = j / L), B bins.

    m = log_misfit(profiles, reference, bins=64)   # profiles [S, L], reference [L] or paired [S, L]
    m.reduced, m.dof, m.p_value                    # chi2 / dof (about 1 within the noise), P(chi^2 >= chi2)
    m.columns()                                    # {"chi2_dof": ..., "dof": ..., "p_misfit": ...}

Every table that reports a misfit (Step-0 metrics.csv and agreement.csv, the
Step-0 study's variants.csv) writes these columns (:func:`misfit_columns`).
Formulas in :func:`log_misfit`.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import stats

from ..validation import check_int
from ._profiles import profiles_and_reference


@dataclasses.dataclass(frozen=True)
class Misfit:
    """Log-profile residuals against a reference, in units of their per-position standard errors.

    Attributes:
      chi2: sum_j z_j^2, z_j the normal quantile of the t statistic (r_j - c) / se_j, over se_j > 0.
      dof: those positions, less 1 (the free scale c) and less the parameters fitted to the profile.
      p_value: P(chi^2_dof >= chi2): small when the residuals exceed the measurement noise.
    """

    chi2: float
    dof: int
    p_value: float

    @property
    def reduced(self) -> float:
        """chi2 / dof (about 1 when the reference is right up to noise)."""
        return self.chi2 / self.dof if self.dof > 0 else math.nan

    def columns(self, suffix: str = "") -> dict:
        """Flat CSV columns chi2_dof{suffix} (= reduced), dof{suffix}, p_misfit{suffix}."""
        return misfit_columns(self, suffix)


def log_misfit(profiles, reference, *, bins: int | None = None, fitted: int = 0) -> Misfit:
    """Whether the reference misses the ensemble mean by more than its noise (a systematic misfit).

    With p_s the normalized (and binned) rows [S, B] and q the reference, the residual of the log
    profile is r_j = log pbar_j - log q_j, with the standard error se_j = sd_s(p_s,j) / (sqrt(S) pbar_j)
    (delta method). A reference [S, B] of paired rows uses the paired differences instead:
    r_j = mean_s d_s,j, se_j = sd_s(d_s,j) / sqrt(S), d_s,j = log p_s,j - log q_s,j. The free scale
    c = sum_j w_j r_j / sum_j w_j (w_j = se_j^-2) is removed; t_j = (r_j - c) / se_j is a Student t
    with S - 1 dof (se_j is estimated from the S rows), mapped to the normal quantile z_j with the same
    tail probability, and

        chi2 = sum_j z_j^2,   dof = #{j: se_j > 0} - 1 - fitted

    (without the t -> z map, a few rows would inflate chi2 by (S - 1) / (S - 3)).

    Args:
      profiles: [S, L] (S >= 2), validated as in :func:`lostmid_jax.stats.agreement.agreement`.
      reference: [L] or paired [S, L].
      bins: None (raw positions) or B equal bins of x.
      fitted: parameters of the reference fitted to this profile (1 for a fitted constant a).
    """
    p, q = profiles_and_reference(profiles, reference, bins)
    rows = p.shape[0]
    if rows < 2:
        raise ValueError(f"profiles must have >= 2 rows for per-position standard errors, got {rows}")
    fitted = check_int("fitted", fitted, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        if q.ndim == 2:
            d = np.log(p) - np.log(q)
            r, se = d.mean(0), d.std(0, ddof=1) / math.sqrt(rows)
        else:
            pbar = p.mean(0)
            r, se = np.log(pbar) - np.log(q), p.std(0, ddof=1) / (math.sqrt(rows) * pbar)
    keep = np.isfinite(r) & np.isfinite(se) & (se > 0)
    dof = int(keep.sum()) - 1 - fitted
    if dof < 1:
        return Misfit(math.nan, max(dof, 0), math.nan)
    w = 1.0 / se[keep] ** 2
    c = float(np.sum(w * r[keep]) / np.sum(w))
    t = (r[keep] - c) / se[keep]  # Student t with S - 1 dof (se is estimated): map to N(0, 1) quantiles
    z = stats.norm.isf(np.clip(stats.t.sf(t, rows - 1), 1e-300, 1 - 1e-16))
    chi2 = float(np.sum(z ** 2))
    return Misfit(chi2, dof, float(stats.chi2.sf(chi2, dof)))


def misfit_columns(misfit: Misfit | None, suffix: str = "") -> dict:
    """{chi2_dof{suffix}: chi2 / dof, dof{suffix}: dof, p_misfit{suffix}: p}; NaN, None, NaN for None (no misfit)."""
    return {f"chi2_dof{suffix}": misfit.reduced if misfit else math.nan, f"dof{suffix}": misfit.dof if misfit else None,
            f"p_misfit{suffix}": misfit.p_value if misfit else math.nan}


__all__ = ["Misfit", "log_misfit", "misfit_columns"]
