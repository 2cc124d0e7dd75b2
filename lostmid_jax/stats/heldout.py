"""Held-out scoring: fit a theory on one half of the seeds, score it on the other half, with 95% CIs.

Shapes: S rows (seeds), F fitting rows, T scored rows, L positions, B bins.

    split = split_halves(S, seed=0)                 # disjoint (fit, score) row indices
    score = heldout_score(profiles, data, predict, split=split, bins=64)

``predict(fit_profiles [F, L], fit_data {name: [F, ...]}) -> reference [L]``
receives copies of the fitting rows only (profiles and every per-row array of
``data``); the reference is then scored on the other rows alone:

- Spearman and Wasserstein-1 of the scored rows' mean vs the reference, their
  95% bootstrap CIs and the noise ceiling of the scored rows
  (:func:`lostmid_jax.stats.agreement.agreement`);
- the rms log error of the mean normalized (binned) scored profile pbar
  against the normalized reference q, with a free overall scale:

      rms_log = sqrt( mean_b (d_b - mean(d))^2 ),   d_b = log pbar_b - log q_b

  (bins where either is 0 are left out), with the same row bootstrap's 95%
  basic interval (:func:`lostmid_jax.stats.agreement.row_bootstrap_ci`);
- the misfit test (:func:`lostmid_jax.stats.misfit.misfit_test`) of the
  scored rows against the reference: log residuals per seed in at most
  16 bins, T / dof about 1 within independent noise, its p-value calibrated
  by flipping the signs of whole seeds (the smallest p of S rows is 2 / 2^S).
  It needs >= 4 scored rows (NaN otherwise).

split_halves permutes 0..S-1 with ``numpy.random.default_rng(seed)`` and puts
the first floor(S/2) in the fitting half (sorted), the rest in the scored half.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..validation import check_int
from ._profiles import normalized
from .agreement import Agreement, agreement, row_bootstrap_ci
from .misfit import Misfit, misfit_test


MISFIT_ROWS = 4  # scored rows the misfit statistic needs


@dataclasses.dataclass(frozen=True)
class Split:
    """Disjoint row indices: ``fit`` (given to the predictor) and ``score`` (scored)."""

    fit: tuple[int, ...]
    score: tuple[int, ...]

    def __post_init__(self):
        if not self.fit or not self.score:
            raise ValueError(f"split needs >= 1 fitting row and >= 1 scored row, got fit={self.fit}, score={self.score}")
        if set(self.fit) & set(self.score):
            raise ValueError(f"split halves must be disjoint, both hold {sorted(set(self.fit) & set(self.score))}")


def split_halves(rows: int, *, seed: int = 0) -> Split:
    """Random disjoint halves of rows 0..S-1: floor(S/2) fitting rows, the rest scored (S >= 3)."""
    rows = check_int("rows", rows, 3)
    perm = np.random.default_rng(seed).permutation(rows)
    half = rows // 2
    return Split(fit=tuple(sorted(int(i) for i in perm[:half])), score=tuple(sorted(int(i) for i in perm[half:])))


def rms_log_error(pbar, q) -> float:
    """sqrt(mean_b (d_b - mean d)^2), d_b = log(pbar_b / q_b) over the bins where both are > 0 (NaN if < 2)."""
    pbar, q = np.asarray(pbar, np.float64), np.asarray(q, np.float64)
    keep = (pbar > 0) & (q > 0)
    if keep.sum() < 2:
        return math.nan
    d = np.log(pbar[keep] / pbar[keep].sum()) - np.log(q[keep] / q[keep].sum())
    return float(np.sqrt(np.mean((d - d.mean()) ** 2)))


@dataclasses.dataclass(frozen=True)
class HeldoutScore:
    """A reference scored on held-out rows.

    Attributes:
      agreement: Spearman, W1, their CIs and the ceiling of the scored rows (:class:`Agreement`).
      rms_log, rms_log_ci: rms log error (module docstring) and its 95% CI.
      misfit: :func:`~lostmid_jax.stats.misfit.misfit_test` of the scored rows (NaN with < 4 scored rows).
      reference: [L] the reference the predictor returned.
      split: the rows used for fitting and for scoring.
    """

    agreement: Agreement
    rms_log: float
    rms_log_ci: tuple[float, float]
    misfit: Misfit
    reference: np.ndarray
    split: Split

    def columns(self) -> dict[str, float]:
        """Flat CSV columns: the agreement's, then rms_log, rms_log_lo, rms_log_hi, and the misfit's
        chi2_dof, dof, p_misfit."""
        lo, hi = self.rms_log_ci
        return {**self.agreement.columns(), "rms_log": self.rms_log, "rms_log_lo": lo, "rms_log_hi": hi,
                **self.misfit.columns()}


def fit_rows(profiles, data: dict, split: Split) -> tuple[np.ndarray, dict]:
    """Copies of the fitting rows of ``profiles`` [S, L] and of each [S, ...] array of ``data``."""
    idx = np.asarray(split.fit)
    return np.array(np.asarray(profiles)[idx]), {k: np.array(np.asarray(v)[idx]) for k, v in data.items()}


def heldout_score(profiles, data: dict, predict, *, split: Split, bins: int | None = None, n_boot: int = 2000,
                  seed: int = 0) -> HeldoutScore:
    """Fit ``predict`` on ``split.fit`` rows, score its reference on ``split.score`` rows (module docstring).

    Args:
      profiles: [S, L] measured profiles >= 0.
      data: {name: [S, ...]} other per-row measurements (e.g. a_l, gains), sliced like profiles.
      predict: (fit_profiles [F, L], fit_data) -> reference [L].
      split: disjoint row indices (each in 0..S-1).
      bins, n_boot, seed: as in :func:`lostmid_jax.stats.agreement.agreement`.
    """
    profiles = np.asarray(profiles, np.float64)
    if profiles.ndim != 2:
        raise ValueError(f"profiles must be 2-D [S, L], got shape {profiles.shape}")
    rows = profiles.shape[0]
    if not isinstance(split, Split):
        raise ValueError(f"split must be a heldout.Split, got {type(split).__name__}")
    if max(*split.fit, *split.score) >= rows or min(*split.fit, *split.score) < 0:
        raise ValueError(f"split indices must lie in 0..{rows - 1} (profiles has {rows} rows)")
    for name, value in data.items():
        if np.asarray(value).shape[:1] != (rows,):
            raise ValueError(f"data[{name!r}] must have {rows} rows like profiles, got shape {np.asarray(value).shape}")
    reference = np.asarray(predict(*fit_rows(profiles, data, split)), np.float64)
    scored = profiles[np.asarray(split.score)]
    agr = agreement(scored, reference, bins=bins, n_boot=n_boot if len(split.score) >= 2 else 0, seed=seed)
    p, q = normalized(scored, bins), normalized(reference, bins)
    rms = rms_log_error(p.mean(axis=0), q)
    ci = (math.nan, math.nan)
    if len(split.score) >= 2 and n_boot > 0 and math.isfinite(rms):
        ci = row_bootstrap_ci(p, lambda m: rms_log_error(m, q), n_boot=n_boot, seed=seed, bounds=(0.0, math.inf))
    misfit = (misfit_test(scored, reference, bins=bins) if len(split.score) >= MISFIT_ROWS
              else Misfit(math.nan, 0, math.nan))
    return HeldoutScore(agreement=agr, rms_log=rms, rms_log_ci=ci, misfit=misfit, reference=reference, split=split)


__all__ = ["MISFIT_ROWS", "HeldoutScore", "Split", "fit_rows", "heldout_score", "rms_log_error", "split_halves"]
