"""Means over seeds (or any replicates) with their error, and intervals for proportions and positive values.

Shapes: S replicates along axis 0 (of rows [S, ...]); scalars elsewhere.

    mean_sem(values)            # (mean, SE = sd / sqrt(S)) of the finite values
    mean_halfwidth(values)      # (mean, t(0.975, S-1) SE): the 95% interval is mean +- half-width
    sem_rows(rows)              # [S, ...] -> [...] SE of the mean over axis 0
    t_interval(rows)            # [S, ...] -> ([...] lo, [...] hi): mean +- t(0.975, S-1) SE
    jackknife_interval(point, leave_one_out, bounds=(0, 1))
    jackknife_bias_corrected(point, leave_one_out)   # S T - (S - 1) mean T_(i)
    wilson_interval(successes, trials)       # 95% Wilson score interval of a proportion
    log_interval(values)        # (geometric mean, lo, hi) for values > 0: never below 0

Formulas (sd the sample standard deviation, ddof = 1; t = t(0.975, S - 1), z = z(0.975)):

- SE = sd / sqrt(S); the t interval is mean +- t sd / sqrt(S). NaN with S < 2.
- Jackknife: SE_jack = sqrt((S - 1) / S sum_i (T_(i) - mean T_(.))^2) over the S
  leave-one-out estimates T_(i); the interval is T +- t SE_jack, clipped to ``bounds``. The
  bias-corrected jackknife point is T_bc = S T - (S - 1) mean_i T_(i) (it removes the O(1/S) bias of T);
  the jackknife-t interval is T_bc +- t SE_jack.
- Wilson: with p = k / n, (p + z^2 / 2n +- z sqrt(p (1 - p) / n + z^2 / 4n^2)) / (1 + z^2 / n).
- Log scale: m, s the mean and sd of log v; (exp m, exp(m - t s / sqrt(S)), exp(m + t s / sqrt(S))),
  the t interval of the geometric mean; NaN interval with S < 3 (two logs give no usable spread).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

LEVEL = 0.95
LOG_ROWS = 3  # values log_interval needs for an interval


def _finite(values) -> np.ndarray:
    v = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, np.float64).ravel()
    return v[np.isfinite(v)]


def _t(rows: int, level: float = LEVEL) -> float:
    return float(stats.t.ppf((1 + level) / 2, rows - 1))


def mean_sem(values) -> tuple[float, float]:
    """(mean, SE = sample std / sqrt(n)) of the finite values; SE is NaN for one value, both NaN for none.

    >>> mean_sem([1.0, 3.0, float("nan")])
    (2.0, 1.0)
    """
    v = _finite(values)
    if v.size == 0:
        return float("nan"), float("nan")
    return float(v.mean()), float(v.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else float("nan")


def mean_halfwidth(values, level: float = LEVEL) -> tuple[float, float]:
    """(mean, half-width t(0.975, n-1) SE of its 95% interval) of the finite values; half-width NaN for one value.

    >>> mean_halfwidth([1.0, 3.0])[1] == mean_halfwidth([1.0, 3.0])[1]  # t(0.975, 1) * 1
    True
    """
    v = _finite(values)
    if v.size == 0:
        return float("nan"), float("nan")
    if v.size == 1:
        return float(v[0]), float("nan")
    return float(v.mean()), float(_t(v.size, level) * v.std(ddof=1) / np.sqrt(v.size))


def sem_rows(rows) -> np.ndarray:
    """SE of the mean over axis 0 of rows [S, ...]: sd / sqrt(S), [...]; NaN where S < 2."""
    rows = np.asarray(rows, np.float64)
    if rows.shape[0] < 2:
        return np.full(rows.shape[1:], np.nan)
    return rows.std(axis=0, ddof=1) / math.sqrt(rows.shape[0])


def t_interval(rows, level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """95% t interval of the mean over axis 0 of rows [S, ...]: (lo, hi) [...]; NaN with one row."""
    rows = np.asarray(rows, np.float64)
    count = rows.shape[0]
    mean = rows.mean(axis=0)
    if count < 2:
        nan = np.full_like(mean, np.nan)
        return nan, nan
    half = _t(count, level) * rows.std(axis=0, ddof=1) / math.sqrt(count)
    return mean - half, mean + half


def jackknife_interval(point: float, leave_one_out, *, bounds: tuple[float, float] = (-math.inf, math.inf),
                       level: float = LEVEL) -> tuple[float, float]:
    """point +- t(0.975, S-1) SE_jack from the S leave-one-out estimates (module docstring), clipped to bounds."""
    jack = np.asarray(leave_one_out, np.float64)
    count = jack.size
    se = math.sqrt((count - 1) / count * float(np.sum((jack - jack.mean()) ** 2)))
    half = _t(count, level) * se
    return max(point - half, bounds[0]), min(point + half, bounds[1])


def jackknife_bias_corrected(point: float, leave_one_out) -> float:
    """T_bc = S T - (S - 1) mean_i T_(i) from T and its S leave-one-out estimates (module docstring).

    >>> jackknife_bias_corrected(2.0, [1.0, 3.0, 2.0])  # a statistic without bias keeps its value
    2.0
    """
    jack = np.asarray(leave_one_out, np.float64)
    return float(jack.size * point - (jack.size - 1) * jack.mean())


def wilson_interval(successes: int, trials: int, level: float = LEVEL) -> tuple[float, float]:
    """The Wilson score interval of the proportion successes / trials (module docstring); NaN for 0 trials.

    The ends lie in [0, 1] and around k / n (exactly 0 at k = 0, exactly 1 at k = n).

    >>> [round(x, 4) for x in wilson_interval(0, 10)]
    [0.0, 0.2775]
    >>> wilson_interval(0, 7)[0], wilson_interval(7, 7)[1]
    (0.0, 1.0)
    """
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must lie in 0..trials, got successes={successes!r}, trials={trials!r}")
    if trials == 0:
        return math.nan, math.nan
    z = float(stats.norm.ppf((1 + level) / 2))
    p, n = successes / trials, trials
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # inside [0, 1] and around p: at k = 0 (k = n) rounding leaves center - half a few 1e-17 above 0 (below 1)
    return min(max(center - half, 0.0), p), max(min(center + half, 1.0), p)


def log_interval(values, level: float = LEVEL) -> tuple[float, float, float]:
    """(geometric mean, lo, hi) of the finite values > 0: the t interval of mean log v, exponentiated.

    The interval never goes below 0. NaN interval with fewer than 3 values (all NaN for none).

    Raises:
      ValueError: a finite value <= 0.
    """
    v = _finite(values)
    if np.any(v <= 0):
        raise ValueError(f"values must be > 0 for a log-scale interval, got {int(np.sum(v <= 0))} values <= 0")
    if v.size == 0:
        return math.nan, math.nan, math.nan
    logs = np.log(v)
    center = float(np.exp(logs.mean()))
    if v.size < LOG_ROWS:
        return center, math.nan, math.nan
    half = _t(v.size, level) * float(logs.std(ddof=1)) / math.sqrt(v.size)
    return center, float(np.exp(logs.mean() - half)), float(np.exp(logs.mean() + half))


__all__ = ["LEVEL", "jackknife_bias_corrected", "jackknife_interval", "log_interval", "mean_halfwidth", "mean_sem",
           "sem_rows", "t_interval", "wilson_interval"]
