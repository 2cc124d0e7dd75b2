"""Tables at the size of the default (full) runs, synthesized in milliseconds instead of run for minutes.

The shapes are those of the default configs (depth sweep: H = 1..64, 128, 256, the five constant a, L = 2048
plus the continuum; diagnose: 5 passages at T = 1024, 24 layers, a 64 x 64 heat map; remedies: the eight
default remedies and the unmodified model at T = 1024). The values are realistic, not measured: the depth
sweep's peak-to-trough decades follow the main job's table (log10(L (1 - a) / a) at H = 1, falling by
0.3 per doubling of H, then growing linearly in H at the rates the main job shows, 847.7 decades at a = 1,
H = 256); its middle density is the factorial law at a = 1 and the geometric law below; attention ratios sit
within a few per cent of uniform, as random-init models and most trained heads do.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

DEPTHS = tuple(range(1, 65)) + (128, 256)
ALPHAS = (0.1, 0.25, 0.5, 0.75, 1.0)
LENGTH = 2048
GROWTH = {0.1: 0.053, 0.25: 0.13, 0.5: 0.30, 0.75: 0.60, 1.0: 3.31}
"""Decades of peak-to-trough per layer at large H (the main job's table at H = 256, divided by 256)."""
REMEDIES = ("rope_base:4", "rope_scaling:linear:2", "rope_scaling:dynamic:2", "rope_scaling:yarn:2",
            "markers:0.25/0.5/0.75", "reorder:first", "reorder:last", "sinks:4:256")


def _decades(a: float, h: int) -> float:
    if a == 1.0:
        return 0.0 if h == 1 else GROWTH[a] * h
    return max(math.log10(LENGTH * (1 - a) / a) - 0.3 * math.log2(h), GROWTH[a] * h)


def _log10_factorial(h: int) -> float:
    return ((h - 1) * math.log(math.log(2)) - math.lgamma(h)) / math.log(10)


def _log10_geometric(a: float, h: int) -> float:
    if a >= 1 or h < 2:
        return math.nan
    return (h * math.log(1 - a) + 2 * math.sqrt(h * a * math.log(2) / (1 - a))) / math.log(10)


def depth_sweep_tables() -> dict:
    """{"results", "profiles"} of the main job's shape (module docstring)."""
    rows = []
    for continuum in (False, True):
        for a in ALPHAS:
            for h in DEPTHS:
                recency = a ** h if a < 1 else 0.5 ** h
                primacy = (1 - recency) * min(0.9, 0.1 + 0.02 * h * a)
                middle = (1 - recency - primacy) * 0.3
                factorial = _log10_factorial(h)
                geometric = _log10_geometric(a, h)
                rows.append(dict(schedule="constant", alpha=a, depth=h, length=math.nan if continuum else LENGTH,
                                 continuum=continuum, recency_weight=recency, primacy_mass=primacy, middle_mass=middle,
                                 late_mass=1 - recency - primacy - middle,
                                 log10_middle_density=factorial if a == 1 else geometric if h > 1 else math.log10(1 - a),
                                 log10_peak_to_trough=_decades(a, h), log10_factorial_law=factorial,
                                 log10_geometric_law=geometric))
    j = np.arange(1, LENGTH + 1)
    x = j / LENGTH
    profiles = [pd.DataFrame(dict(alpha=0.5, depth=h, length=LENGTH, j=j, x=x,
                                  log10_density=-0.3 * h * np.sin(np.pi * x) + 0.5 * (j == LENGTH) * h))
                for h in (1, 2, 5, 12, 28, 64)]
    return {"results": pd.DataFrame(rows), "profiles": pd.concat(profiles, ignore_index=True)}


def _wilson_like(rate: np.ndarray, n: int = 40) -> tuple[np.ndarray, np.ndarray]:
    half = 1.96 * np.sqrt(rate * (1 - rate) / n + 1 / n ** 2)
    return np.clip(rate - half, 0, 1), np.clip(rate + half, 0, 1)


def diagnose_tables(layers: int = 24, length: int = 1024, passages: int = 5, bins: int = 64, seed: int = 0) -> dict:
    """{"accuracy", "attention", "heatmap", "profiles"} of a default diagnose run on a 24-layer model."""
    rng = np.random.default_rng(seed)
    p = np.arange(1, passages + 1)
    acc = 0.9 - 0.4 * np.sin(np.pi * (p - 0.5) / passages)
    exact = acc - 0.1
    accuracy = pd.DataFrame(dict(length=length, passage=p, accuracy=acc, exact=exact, chance=0.2))
    for name, rate in (("accuracy", acc), ("exact", exact)):
        accuracy[f"{name}_lo"], accuracy[f"{name}_hi"] = _wilson_like(rate)
    j = np.arange(1, length + 1)
    uniform = np.cumsum((1.0 / j)[::-1])[::-1] / length
    attention = pd.concat([pd.DataFrame(dict(layer=layer, j=j, x=j / length,
                                             raw=uniform * (ratio := 1 + 0.03 * rng.standard_normal(length)),
                                             vs_uniform=ratio)) for layer in range(1, layers + 1)], ignore_index=True)
    q, k = np.meshgrid(np.arange(bins), np.arange(bins), indexing="ij")
    ratio = np.where(k <= q, np.exp(0.03 * rng.standard_normal((bins, bins))), np.nan)
    heatmap = pd.DataFrame(dict(query_bin=q.ravel(), key_bin=k.ravel(), ratio=ratio.ravel()))
    x = j / length
    shape = np.exp(-3 * np.sin(np.pi * x))
    profiles = pd.DataFrame(dict(j=j, x=x, trained=shape / shape.sum(), trained_sem=0.1 * shape / shape.sum(),
                                 step0=shape ** 0.5 / (shape ** 0.5).sum(), step0_sem=0.05 * shape ** 0.5 / shape.sum(),
                                 prior=shape ** 0.7 / (shape ** 0.7).sum()))
    return {"accuracy": accuracy, "attention": attention, "heatmap": heatmap, "profiles": profiles}


def remedies_tables(length: int = 1024, passages: int = 5, seed: int = 0) -> dict:
    """{"accuracy", "effects", "received"} of a default remedies run (eight remedies and the unmodified model)."""
    rng = np.random.default_rng(seed)
    names = ("none", *REMEDIES)
    p = np.arange(1, passages + 1)
    frames, received, effects = [], [], []
    j = np.arange(1, length + 1)
    for n, name in enumerate(names):
        acc = np.clip(0.85 - 0.35 * np.sin(np.pi * (p - 0.5) / passages) + 0.02 * n, 0, 1)
        lo, hi = _wilson_like(acc)
        frames.append(pd.DataFrame(dict(remedy=name, passage=p, accuracy=acc, accuracy_lo=lo, accuracy_hi=hi,
                                        chance=0.2)))
        received.append(pd.DataFrame(dict(remedy=name, j=j, x=j / length,
                                          vs_uniform=np.exp(0.004 * rng.standard_normal(length) * (1 + 0.2 * n)))))
        if name != "none":
            noop = name in ("rope_scaling:dynamic:2", "sinks:4:256")
            middle, ends = (0.0, 0.0) if noop else (0.02 * n, -0.01 * n)
            effects.append(dict(remedy=name, verdict="no difference beyond noise" if noop else "helps the middle",
                                middle=middle, middle_lo=middle - (0 if noop else 0.05),
                                middle_hi=middle + (0 if noop else 0.05), ends=ends,
                                ends_lo=ends - (0 if noop else 0.04), ends_hi=ends + (0 if noop else 0.04)))
    return {"accuracy": pd.concat(frames, ignore_index=True), "effects": pd.DataFrame(effects),
            "received": pd.concat(received, ignore_index=True)}
