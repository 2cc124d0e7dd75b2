"""Theory rows to compare a measured profile with: measured a_l, or a fitted constant a.

Shapes: L positions (1-based j, x = j/L), H depth (number of layers).

    w_j = (N_H ... N_1)[L, j],  N_l = (1 - a_l) I + a_l A     (Chowdhury, arXiv:2603.10123)

with A the Step-0 attention matrix of ``prior``: the Cesàro matrix M
(theory.Causal()) by default; ``prior_for(cfg, L)`` gives a model's own
(sliding window, prefix-LM, documents, ALiBi).

Fitted constant a: the a in (0, 1] minimizing the variance over j of

    log n_j - log w_j(a)

(least squares on the log profile with a free overall scale, so the fit is
scale-free and weights every position alike; positions with n_j = 0 are
skipped). A grid of 200 values of a is scanned and the best cell refined by
bounded Brent search. objective="wasserstein" instead minimizes the
Wasserstein-1 distance of the normalized profiles; the default log fit keeps
the reported Wasserstein distance an out-of-fit check.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import optimize

from .. import theory
from ..validation import check_choice, check_int
from ..stats import profile_metrics as metrics

OBJECTIVES = ("log_lsq", "wasserstein")


def theory_row(length: int, alphas, *, prior=theory.Causal()) -> np.ndarray:
    """w_j for the per-layer schedule ``alphas`` (length H, clipped to [0, 1]) under ``prior``: [L] float64, sums to 1."""
    alphas = tuple(float(a) for a in np.clip(np.asarray(alphas, np.float64), 0.0, 1.0))
    return np.exp(theory.log_influence_row(length, len(alphas), alphas, prior=prior))


GRID = np.linspace(0.005, 1.0, 200)
"""The values of a scanned before the bounded Brent refinement."""

GRID_CACHE_MAX_LENGTH = 8192
"""Longest L whose grid of log theory rows (200 L float64) is kept for the next fit (:func:`grid_log_rows`)."""


def _log_row(length: int, depth: int, a: float, prior) -> np.ndarray:
    return theory.log_influence_row(length, depth, float(a), prior=prior)


@functools.lru_cache(maxsize=4)
def _cached_grid_rows(length: int, depth: int, prior) -> tuple:
    rows = tuple(_log_row(length, depth, a, prior) for a in GRID)
    for row in rows:
        row.flags.writeable = False
    return rows


def grid_log_rows(length: int, depth: int, prior) -> tuple:
    """log w(a) [L] for each a of GRID: the same rows every fit of (L, H, prior) scans (a summary fits dozens:
    two objectives, each left-out seed, each variant), so they are kept (read-only) for L <= GRID_CACHE_MAX_LENGTH
    and a hashable prior."""
    try:
        hash(prior)
    except TypeError:
        return tuple(_log_row(length, depth, a, prior) for a in GRID)
    if length > GRID_CACHE_MAX_LENGTH:
        return tuple(_log_row(length, depth, a, prior) for a in GRID)
    return _cached_grid_rows(length, depth, prior)


def _loss(norms: np.ndarray, objective: str):
    """The fit's objective of a log theory row log w [L]."""
    keep = norms > 0
    log_n = np.log(norms[keep])

    def loss(log_w: np.ndarray) -> float:
        if objective == "wasserstein":
            return metrics.wasserstein(norms, np.exp(log_w))
        d = log_n - log_w[keep]
        return float(np.var(d)) if np.all(np.isfinite(d)) else np.inf

    return loss


def fit_constant_alpha(norms, depth: int, *, objective: str = "log_lsq", prior=theory.Causal()) -> float:
    """The constant a in (0, 1] whose theory row best matches ``norms`` [L].

    Args:
      norms: [L] measured profile (>= 0, at least two positive entries).
      depth: H, the number of attention blocks.
      objective: "log_lsq" (default) or "wasserstein" (see module docstring).
      prior: the Step-0 attention prior of the rows (validated for L).
    """
    norms = np.asarray(norms, np.float64)
    if norms.ndim != 1 or np.sum(norms > 0) < 2 or not np.all(np.isfinite(norms)) or np.any(norms < 0):
        raise ValueError("norms must be a 1-D finite array >= 0 with at least two positive entries")
    depth = check_int("depth", depth, 1)
    objective = check_choice("objective", objective, OBJECTIVES)
    prior = theory.check_prior(prior, norms.size)
    loss = _loss(norms, objective)
    grid = GRID
    values = np.array([loss(row) for row in grid_log_rows(norms.size, depth, prior)])
    i = int(np.argmin(values))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    res = optimize.minimize_scalar(lambda a: loss(_log_row(norms.size, depth, a, prior)), bounds=(lo, hi),
                                   method="bounded", options={"xatol": 1e-6})
    return float(res.x) if res.fun <= values[i] else float(grid[i])
