"""Synthetic ensembles for calibration tests: a truth profile times per-seed noise of several kinds.

Each kind draws S rows [S, L] = truth * noise; the truths and noises differ from the ones the statistics
were designed on (a decreasing profile with a recency spike; a U; noise shared across positions).
"""

import numpy as np

from lostmid_jax.stats._profiles import bin_matrix
from lostmid_jax.stats.misfit import MISFIT_BINS

KINDS = ("iid-lognormal", "seed-correlated", "heavy-tailed", "probe", "heteroscedastic", "mixed")
# Step-0-like noises a reviewer measured the misfit test on (issue 32): log-noise correlated along positions,
# a heavy-tailed tilt of each seed's log-profile, and a last position that varies a lot between seeds
STEP0_KINDS = ("ar1-correlated", "seed-tilt-heavy", "noisy-recency")
ALL_KINDS = KINDS + STEP0_KINDS
AR1_RHO, AR1_SD = 0.95, 0.25  # ar1-correlated: lag-1 correlation and marginal sd of the log-noise
TILT_SCALE, TILT_DOF = 0.6, 3  # seed-tilt-heavy: slope b_s = TILT_SCALE * t_TILT_DOF
RECENCY_SD = 0.5  # noisy-recency: sd of the last position's extra log-noise


def decreasing(length: int) -> np.ndarray:
    """1 / (x + 0.05) plus a spike at the last position (the Step-0 shape)."""
    x = np.arange(1, length + 1) / length
    return 1.0 / (x + 0.05) + 8.0 * (x == 1)


def u_shape(length: int) -> np.ndarray:
    x = np.arange(1, length + 1) / length
    return 1.0 + 6.0 * (x - 0.5) ** 2


def decreasing_bump(length: int) -> np.ndarray:
    """The decreasing profile with a bump in the middle (x = 0.5, width 0.08, +60%)."""
    x = np.arange(1, length + 1) / length
    return decreasing(length) * (1 + 0.6 * np.exp(-((x - 0.5) / 0.08) ** 2))


def flat_recency(length: int) -> np.ndarray:
    """Nearly flat with a weak decline and a recency spike, the last position about 6.6x the middle (the
    shape qwen2-0.5b measured at Step 0; not a shape the intervals were designed on)."""
    x = np.arange(1, length + 1) / length
    return 1.15 - 0.3 * x + 0.8 * x ** 12 + 5.0 * (x == 1)


TRUTHS = ("decreasing+bump", "u-shape", "flat+recency")


def truth_profile(name: str, length: int) -> np.ndarray:
    """The truth called ``name`` (one of TRUTHS) at L = ``length``."""
    return {"decreasing+bump": decreasing_bump, "u-shape": u_shape, "flat+recency": flat_recency}[name](length)


def noise(kind: str, rows: int, length: int, rng) -> np.ndarray:
    """[S, L] positive multiplicative noise."""
    x = np.linspace(0.0, 1.0, length)
    if kind == "iid-lognormal":
        return np.exp(0.3 * rng.standard_normal((rows, length)))
    if kind == "seed-correlated":  # a smooth random deviation per seed, shared by all positions, plus a little iid
        a = rng.normal(0.0, 0.25, (rows, 3))
        smooth = a[:, :1] * np.sin(np.pi * x) + a[:, 1:2] * np.cos(2 * np.pi * x) + a[:, 2:] * x
        return np.exp(smooth + 0.1 * rng.standard_normal((rows, length)))
    if kind == "heavy-tailed":  # Student t with 4 dof: finite variance, heavy tails
        return np.maximum(1.0 + 0.2 * rng.standard_t(4, (rows, length)), 0.05)
    if kind == "probe":  # a randomized estimator's chi^2_8 / 8 per position
        return rng.chisquare(8, (rows, length)) / 8.0
    if kind == "heteroscedastic":  # noise growing along the context
        return np.exp((0.1 + 0.4 * x) * rng.standard_normal((rows, length)))
    if kind == "ar1-correlated":  # log n_s,j = AR(1) along j, lag-1 correlation 0.95, marginal sd 0.25
        return np.exp(_ar1(rng.standard_normal((rows, length)), AR1_RHO) * AR1_SD)
    if kind == "seed-tilt-heavy":  # log n_s,j = b_s (x_j - 1/2) + 0.1 z_s,j, b_s = 0.6 t_3 (median |b| 0.46, 0.2% > 6)
        slope = TILT_SCALE * rng.standard_t(TILT_DOF, (rows, 1))
        return np.exp(slope * (x - 0.5) + 0.1 * rng.standard_normal((rows, length)))
    if kind == "noisy-recency":  # iid 0.1 log-noise, the last position 0.5 more (sd sqrt(0.1^2 + 0.5^2))
        logn = 0.1 * rng.standard_normal((rows, length))
        logn[:, -1] += RECENCY_SD * rng.standard_normal(rows)
        return np.exp(logn)
    if kind == "mixed":
        return noise("heavy-tailed", rows, length, rng) * noise("seed-correlated", rows, length, rng) * noise(
            "probe", rows, length, rng)
    raise ValueError(kind)


def _ar1(z: np.ndarray, rho: float) -> np.ndarray:
    """[S, L] stationary AR(1) along the last axis with unit marginal variance from iid N(0, 1) z:
    e_1 = z_1, e_j = rho e_{j-1} + sqrt(1 - rho^2) z_j."""
    out = np.empty_like(z)
    out[:, 0] = z[:, 0]
    scale = np.sqrt(1.0 - rho ** 2)
    for j in range(1, z.shape[1]):
        out[:, j] = rho * out[:, j - 1] + scale * z[:, j]
    return out


def geometric_profile(truth: np.ndarray, kind: str, rng, draws: int = 50_000, bins: int = MISFIT_BINS) -> np.ndarray:
    """[L] the reference that is right under the misfit test's null (stats.misfit): its masses in ``bins``
    equal bins of x are the normalized geometric means exp E[log P_b] of the rows' bin masses (Monte-Carlo
    over ``draws`` rows), spread over each bin's positions in proportion to ``truth``. Sums to 1."""
    coarse = bin_matrix(truth.size, bins)  # [L, B]
    rows = truth * noise(kind, draws, truth.size, rng)
    masses = (rows / rows.sum(1, keepdims=True)) @ coarse
    geo = np.exp(np.log(masses).mean(0))
    geo /= geo.sum()
    return truth * (geo / (truth @ coarse))[coarse.argmax(1)]


def expected_profile(truth: np.ndarray, kind: str, rng, draws: int = 50_000) -> np.ndarray:
    """E[p] of the normalized rows, by Monte-Carlo (the reference that is right)."""
    rows = truth * noise(kind, draws, truth.size, rng)
    return (rows / rows.sum(1, keepdims=True)).mean(0)
