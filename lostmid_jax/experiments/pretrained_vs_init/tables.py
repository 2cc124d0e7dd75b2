"""The CSV rows of a comparison: metrics.csv, agreement.csv, profiles.csv, alphas.csv (and content_scores.csv)."""

from __future__ import annotations

import math

import numpy as np

from .config import Config
from .columns import COLUMNS
from .measure import Result


def metric_records(cfg: Config, model_cfg, summaries: dict) -> list[dict]:
    """Rows of metrics.csv: one per model."""
    method = cfg.resolved_method(model_cfg.width)
    rows = []
    for name, s in summaries.items():
        values = dict(s, model=name, method=method, a_mean=float(np.mean(s["alphas"])))
        rows.append({k: _na(values[k]) for k in COLUMNS["metrics.csv"]})
    return rows


def _na(value):
    """None (an empty CSV field) for NaN; the value otherwise."""
    return None if isinstance(value, float) and math.isnan(value) else value


def agreement_records(agreements: dict) -> list[dict]:
    """Rows of agreement.csv: one per (model, reference)."""
    return [dict(model=model, reference=ref, **{k: _na(float(v)) for k, v in ag.columns().items()},
                 rows=ag.rows, bins=ag.bins) for (model, ref), ag in agreements.items()]


def profile_records(summaries: dict) -> list[dict]:
    """Rows of profiles.csv: one per (model, j), j = 1..L."""
    records = []
    for name, s in summaries.items():
        path, length = s["paths"]["total"], s["length"]
        for j in range(1, length + 1):
            records.append(dict(model=name, j=j, x=j / length, p_mean=path["p"][j - 1], p_sem=path["p_sem"][j - 1],
                                norm_mean=path["norms"][j - 1], theory_measured=s["theory"]["measured"][j - 1],
                                theory_fitted=s["theory"]["fitted"][j - 1]))
    return records


def alpha_records(summaries: dict) -> list[dict]:
    """Rows of alphas.csv: measured a_l per model and layer l = 1..H."""
    return [dict(model=name, layer=l + 1, a_mean=float(s["alphas"][l]), a_sem=float(s["alphas_sem"][l]))
            for name, s in summaries.items() for l in range(s["depth"])]


def records(result: Result) -> dict[str, list[dict]]:
    """metrics.csv, agreement.csv, profiles.csv, alphas.csv, timings.csv (measurement times, apart from the
    results); content_scores.csv with --content-prior."""
    from ...analysis.measured_prior import content_records

    out = {"metrics.csv": metric_records(result.config, result.model_config, result.summaries),
           "agreement.csv": agreement_records(result.agreements),
           "profiles.csv": profile_records(result.summaries),
           "alphas.csv": alpha_records(result.summaries),
           "timings.csv": [{"model": name, "seconds": s["seconds"]} for name, s in result.summaries.items()]}
    if result.config.content_prior:
        out["content_scores.csv"] = content_records(result.prior, result.config.influence.length, model="init")
    return out
