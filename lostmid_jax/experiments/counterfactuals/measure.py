"""The sweep: for each prior and depth H, the exact Step-0 row's summary and dead zone (results.csv,
profiles.csv)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ...theory.dead_zones import dead_zone
from .config import Config, families_of

_LN10 = math.log(10.0)

PROFILE_POINTS = 512
"""profiles.csv keeps at most about this many positions per row (every k-th j, and j = L)."""




def profile_record(cfg: Config, spec: str, depth: int, log_row: np.ndarray | None = None) -> dict:
    """One results row: (prior, H) with the profile summary and dead-zone numbers (None where undefined)."""
    from ...theory import log_influence_row, parse_prior, summarize_log_row

    prior = parse_prior(spec, cfg.length)
    if log_row is None:
        log_row = log_influence_row(cfg.length, depth, cfg.schedule(depth), prior=prior)
    record = {"prior": spec, "label": prior.label, "family": "; ".join(families_of(spec)) or None, "depth": depth,
              "schedule": cfg.schedule_label}
    record.update(summarize_log_row(log_row, band=cfg.band).as_dict())
    record.update(dead_zone(log_row, cfg.dead_below))
    return {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in record.items()}


def profile_rows(spec: str, label: str, depth: int, log_row: np.ndarray) -> list[dict]:
    """profiles.csv rows of one (prior, H): log10 (L w_j) at every k-th j (k = ceil(L / PROFILE_POINTS)) and j = L."""
    length = log_row.size
    step = max(1, -(-length // PROFILE_POINTS))
    js = sorted(set(range(1, length + 1, step)) | {length})
    density = (log_row + math.log(length)) / _LN10
    return [{"prior": spec, "label": label, "depth": depth, "length": length, "j": j, "x": j / length,
             "log10_density": float(density[j - 1])} for j in js]


@dataclasses.dataclass(frozen=True)
class Result:
    """What :func:`run` returns.

    Attributes:
      config: the sweep's arguments.
      records: one dict per (prior, H), prior-major (results.csv).
      profiles: prior spec -> {H: log row [L]} for the depths the figure draws.
    """

    config: Config
    records: list[dict]
    profiles: dict[str, dict[int, np.ndarray]]


def profile_depths(cfg: Config, count: int = 4) -> tuple[int, ...]:
    """Up to ``count`` depths for the profile figure, ending at the profile depth."""
    shown = [h for h in cfg.depths if h <= cfg.profile_depth]
    idx = np.unique(np.round(np.linspace(0, len(shown) - 1, min(count, len(shown)))).astype(int))
    return tuple(shown[i] for i in idx)


def run(cfg: Config, run_dir=None, *, progress: bool = True, mesh=None) -> Result:
    """Every (prior, H) row of the sweep, with a tqdm bar over the points (``run_dir``, ``mesh`` unused)."""
    from tqdm.auto import tqdm

    from ...runs.stop import checked
    from ...theory import log_influence_row, parse_prior

    keep = set(profile_depths(cfg))
    points = [(spec, depth) for spec in cfg.priors for depth in cfg.depths]
    records, profiles = [], {spec: {} for spec in cfg.priors}
    for spec, depth in checked(tqdm(points, desc="counterfactual priors", disable=not progress, leave=False)):
        log_row = log_influence_row(cfg.length, depth, cfg.schedule(depth), prior=parse_prior(spec, cfg.length))
        records.append(profile_record(cfg, spec, depth, log_row))
        if depth in keep:
            profiles[spec][depth] = log_row
    return Result(cfg, records, profiles)


def records(result: Result) -> dict[str, list[dict]]:
    """results.csv and profiles.csv (the rows of figure 1)."""
    labels = {r["prior"]: r["label"] for r in result.records}
    rows = [row for spec, by_depth in result.profiles.items() for depth, log_row in sorted(by_depth.items())
            for row in profile_rows(spec, labels[spec], depth, log_row)]
    return {"results.csv": result.records, "profiles.csv": rows}
