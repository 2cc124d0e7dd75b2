"""Synthetic ensembles for calibration tests: a truth profile times per-seed noise of several kinds.

Each kind draws S rows [S, L] = truth * noise; the truths and noises differ from the ones the statistics
were designed on (a decreasing profile with a recency spike; a U; noise shared across positions).
"""

import numpy as np

KINDS = ("iid-lognormal", "seed-correlated", "heavy-tailed", "probe", "heteroscedastic", "mixed")


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
    if kind == "mixed":
        return noise("heavy-tailed", rows, length, rng) * noise("seed-correlated", rows, length, rng) * noise(
            "probe", rows, length, rng)
    raise ValueError(kind)


def expected_profile(truth: np.ndarray, kind: str, rng, draws: int = 50_000) -> np.ndarray:
    """E[p] of the normalized rows, by Monte-Carlo (the reference that is right)."""
    rows = truth * noise(kind, draws, truth.size, rng)
    return (rows / rows.sum(1, keepdims=True)).mean(0)
