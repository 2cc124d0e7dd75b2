"""The sweep itself: for every schedule, depth H and length L (and the continuum) one results row
(the summary and the two middle laws), and the rows of figure 1's profiles."""

from __future__ import annotations

import dataclasses
import math

from .config import Config

_LN10 = math.log(10.0)


@dataclasses.dataclass(frozen=True)
class ScheduleSpec:
    """One schedule family: kind in {"constant", "power", "custom"}."""

    kind: str
    alpha: float | None = None
    b: float | None = None
    values: tuple[float, ...] | None = None

    def layers(self, depth: int):
        """The per-layer values for the first ``depth`` layers (a number if constant)."""
        from ...theory import power_law_schedule

        if self.kind == "constant":
            return self.alpha
        if self.kind == "power":
            return power_law_schedule(depth, self.alpha, self.b)
        return self.values[:depth]

    @property
    def label(self) -> str:
        if self.kind == "constant":
            return f"a={self.alpha:g}"
        if self.kind == "power":
            return f"a0={self.alpha:g}, b={self.b:g}"
        return "custom"


@dataclasses.dataclass(frozen=True)
class Result:
    """What :func:`run` returns: the config, one record per (schedule, H, L) and the drawn profiles.

    Attributes:
      config: the Config.
      records: results.csv rows; ``length`` is None and ``continuum`` True for the continuum limit.
      profiles: profiles.csv rows (the constant-a rows of figure 1, see :func:`profile_records`).
    """

    config: Config
    records: list[dict]
    profiles: list[dict] = dataclasses.field(default_factory=list)


def pick_evenly(values, count: int) -> list:
    """Up to ``count`` of the distinct ``values``, sorted: ranks spaced geometrically from the first to the last.

    >>> pick_evenly(range(1, 65), 6)
    [1, 2, 5, 12, 28, 64]
    """
    import numpy as np

    values = sorted(set(values))
    if len(values) <= count:
        return values
    idx = np.unique(np.round(np.geomspace(1, len(values), count)).astype(int) - 1)
    return [values[i] for i in idx]


def profile_choice(cfg: Config) -> tuple[float, int, list[int]]:
    """(a, L, depths) of the profiles drawn in figure 1: a = 0.5 if swept (else the middle a),
    the first L, and up to 6 depths <= 64 spaced geometrically."""
    alpha = 0.5 if 0.5 in cfg.alphas else float(cfg.alphas[len(cfg.alphas) // 2])
    shallow = [h for h in cfg.depths if h <= 64] or list(cfg.depths)
    return float(alpha), cfg.lengths[0], pick_evenly(shallow, 6)


def profile_records(cfg: Config) -> list[dict]:
    """profiles.csv rows: log10 (L w_j) at every j = 1..L for the (a, L, depths) of :func:`profile_choice`."""
    from ...theory import log_influence_row

    alpha, length, depths = profile_choice(cfg)
    rows = []
    for depth in depths:
        log10_density = (log_influence_row(length, depth, alpha) + math.log(length)) / _LN10
        rows += [{"alpha": alpha, "depth": depth, "length": length, "j": j, "x": j / length,
                  "log10_density": float(v)} for j, v in enumerate(log10_density, start=1)]
    return rows


def schedule_specs(cfg: Config) -> list[ScheduleSpec]:
    """The schedules the sweep covers, in output order."""
    specs = [ScheduleSpec("constant", alpha=float(a)) for a in cfg.alphas]
    if cfg.power_b is not None:
        specs += [ScheduleSpec("power", alpha=float(a), b=float(cfg.power_b)) for a in cfg.alphas]
    if cfg.custom is not None:
        specs.append(ScheduleSpec("custom", values=tuple(float(a) for a in cfg.custom)))
    return specs


def _laws(spec: ScheduleSpec, depth: int) -> tuple[float, float]:
    """log10 of the factorial law and (constant 0 < a < 1, H >= 2) the geometric law."""
    from ...theory.middle_laws import log_factorial_law, log_geometric_law

    factorial = log_factorial_law(depth) / _LN10
    geometric = math.nan
    if spec.kind == "constant" and 0 < spec.alpha < 1 and depth >= 2:
        geometric = log_geometric_law(depth, spec.alpha) / _LN10
    return factorial, geometric


def point_record(spec: ScheduleSpec, depth: int, length: int | None, band: float) -> dict:
    """One results row: the summary of (schedule, H, L) plus the middle laws; ``length`` None: the continuum."""
    from ...theory import continuum_summary, log_influence_row, summarize_log_row

    alpha = spec.layers(depth)
    if length is None:
        summary = continuum_summary(depth, alpha, band=band)
    else:
        summary = summarize_log_row(log_influence_row(length, depth, alpha), band=band)
    factorial, geometric = _laws(spec, depth)
    record = {"schedule": spec.kind, "label": spec.label, "alpha": spec.alpha, "b": spec.b, "depth": depth,
              "length": length, "continuum": length is None}
    record.update({k: v for k, v in summary.as_dict().items() if k != "length"})
    record["log10_factorial_law"] = factorial
    record["log10_geometric_law"] = geometric
    return record


def run(cfg: Config, run_dir=None, *, progress: bool = True, mesh=None) -> Result:
    """All results rows, schedule-major, then H, then L (continuum last), and figure 1's profiles.
    ``run_dir`` and ``mesh`` are unused."""
    from tqdm.auto import tqdm

    from ...runs.stop import checked

    points = [(spec, depth, length) for spec in schedule_specs(cfg) for depth in cfg.depths
              for length in (*cfg.lengths, None)]
    records = [point_record(spec, depth, length, cfg.band)
               for spec, depth, length in checked(tqdm(points, desc="depth sweep", disable=not progress, leave=False))]
    return Result(cfg, records, profile_records(cfg))


def records(result: Result) -> dict[str, list[dict]]:
    """results.csv and profiles.csv (io.write_csv writes NaN as missing, like None)."""
    return {"results.csv": result.records, "profiles.csv": result.profiles}
