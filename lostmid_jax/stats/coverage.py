"""Measured coverage of the agreement intervals, and the caveat a verdict carries where it falls short.

A data-free table: for each statistic of :func:`lostmid_jax.stats.agreement.agreement` (Spearman, W1,
noise ceiling), each regime and each number of seeds S in {4, 8, 16}, the fraction of 200 synthetic
ensembles (L = 64) whose 95% interval held the true value, summarized over the cells of that regime
(3 truths: decreasing with a middle bump, U, nearly flat with a recency spike; 6 noises:
iid log-normal, seed-correlated, heavy-tailed, probe, heteroscedastic, mixed). Produced by

    python benchmarks/interval_coverage.py --out coverage.jsonl      # about 10 CPU-minutes
    python benchmarks/interval_coverage.py --out coverage.jsonl --table

Regimes (the verdict knows which one it is in):

- spearman: split by the noise ceiling c of the ensemble; with c < 0.85 the attenuation of a Spearman
  of a noisy mean is larger than its bootstrap can see and no candidate interval covered.
- wasserstein: split at W1 = 0.05; near its bound 0 (the regime of the paper's claim W1 <= 0.02) the
  interval under-covers.
- ceiling: one regime; the ceiling's point runs 0.005-0.015 high under multiplicative noise (the
  Spearman-Brown square-root link is exact for Pearson correlations only), so its interval covers less
  as S grows and it narrows.

An interval is ``adequate`` at (statistic, regime, S) when its mean coverage over the regime's cells
is >= 0.93; :func:`caveat` gives the text a verdict appends otherwise (docs/step0.md, "How well the
intervals cover").
"""

from __future__ import annotations

import dataclasses
import math

ADEQUATE = 0.93  # mean coverage below which an interval's verdict carries a caveat
SPEARMAN_CEILING = 0.85  # noise ceiling below which a Spearman's interval does not cover
W1_NEAR_BOUND = 0.05  # W1 below which its interval is in the near-bound regime
METRICS = ("spearman", "wasserstein", "ceiling")
_LABEL = {"spearman": "Spearman", "wasserstein": "W1", "ceiling": "noise ceiling"}


@dataclasses.dataclass(frozen=True)
class Coverage:
    """Coverage of one statistic's 95% interval in one regime at S seeds.

    Attributes:
      metric, method, regime, rows: the statistic, its interval method, the regime, S.
      cells: (truth, noise) cells of the regime at this S, 200 ensembles each.
      mean, low, high: mean, lowest and highest coverage over the cells.
      worst: "truth/noise" of the lowest cell; worst_ci its 95% Wilson interval.
    """

    metric: str
    method: str
    regime: str
    rows: int
    cells: int
    mean: float
    low: float
    high: float
    worst: str
    worst_ci: tuple[float, float]

    @property
    def adequate(self) -> bool:
        return self.mean >= ADEQUATE


# fmt: off
TABLE = (
    Coverage("spearman", "basic-k", "ceiling < 0.85", 4, 8, 0.589, 0.345, 0.890, "flat+recency/probe", (0.283, 0.413)),
    Coverage("spearman", "basic-k", "ceiling >= 0.85", 4, 10, 0.965, 0.915, 1.000, "u-shape/seed-correlated", (0.868, 0.946)),
    Coverage("spearman", "basic-k", "ceiling < 0.85", 8, 8, 0.534, 0.220, 0.900, "flat+recency/probe", (0.168, 0.282)),
    Coverage("spearman", "basic-k", "ceiling >= 0.85", 8, 10, 0.944, 0.840, 0.990, "decreasing+bump/heteroscedastic", (0.783, 0.884)),
    Coverage("spearman", "basic-k", "ceiling < 0.85", 16, 6, 0.518, 0.280, 0.870, "flat+recency/probe", (0.222, 0.346)),
    Coverage("spearman", "basic-k", "ceiling >= 0.85", 16, 12, 0.913, 0.850, 0.955, "decreasing+bump/heteroscedastic", (0.794, 0.893)),
    Coverage("wasserstein", "jack-t", "W1 < 0.05", 4, 6, 0.917, 0.900, 0.940, "decreasing+bump/iid-lognormal", (0.851, 0.934)),
    Coverage("wasserstein", "jack-t", "W1 >= 0.05", 4, 12, 0.956, 0.935, 0.980, "u-shape/seed-correlated", (0.892, 0.962)),
    Coverage("wasserstein", "jack-t", "W1 < 0.05", 8, 6, 0.899, 0.815, 0.950, "decreasing+bump/seed-correlated", (0.755, 0.863)),
    Coverage("wasserstein", "jack-t", "W1 >= 0.05", 8, 12, 0.947, 0.915, 0.985, "u-shape/mixed", (0.868, 0.946)),
    Coverage("wasserstein", "jack-t", "W1 < 0.05", 16, 6, 0.886, 0.830, 0.945, "decreasing+bump/heteroscedastic", (0.772, 0.876)),
    Coverage("wasserstein", "jack-t", "W1 >= 0.05", 16, 12, 0.944, 0.920, 0.955, "u-shape/mixed", (0.874, 0.950)),
    Coverage("ceiling", "jack", "all", 4, 18, 0.888, 0.640, 0.990, "decreasing+bump/heteroscedastic", (0.571, 0.703)),
    Coverage("ceiling", "jack", "all", 8, 18, 0.761, 0.140, 0.960, "decreasing+bump/heteroscedastic", (0.099, 0.195)),
    Coverage("ceiling", "jack", "all", 16, 18, 0.697, 0.190, 0.910, "decreasing+bump/probe", (0.142, 0.250)),
)
# fmt: on


def regime(metric: str, *, value: float | None = None, ceiling: float | None = None) -> str:
    """The regime of ``metric`` (one of METRICS): by the noise ceiling for a Spearman (unknown: the low
    regime), by the value for W1 (unknown: the near-bound regime), one regime for the ceiling."""
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    if metric == "spearman":
        ok = ceiling is not None and math.isfinite(ceiling) and ceiling >= SPEARMAN_CEILING
        return f"ceiling {'>=' if ok else '<'} {SPEARMAN_CEILING:g}"
    if metric == "wasserstein":
        ok = value is not None and math.isfinite(value) and value >= W1_NEAR_BOUND
        return f"W1 {'>=' if ok else '<'} {W1_NEAR_BOUND:g}"
    return "all"


def measured(metric: str, rows: int, *, value: float | None = None, ceiling: float | None = None) -> Coverage | None:
    """The table's row for ``metric`` in its regime at the largest measured S <= ``rows`` (None below 4)."""
    name = regime(metric, value=value, ceiling=ceiling)
    found = [c for c in TABLE if c.metric == metric and c.regime == name and c.rows <= rows]
    return max(found, key=lambda c: c.rows) if found else None


def caveat(metric: str, rows: int, *, value: float | None = None, ceiling: float | None = None) -> str:
    """'' where the interval of ``metric`` at ``rows`` seeds was measured adequate (mean coverage >= 0.93),
    else one sentence with the measured coverage: what a verdict keyed on that interval must say."""
    row = measured(metric, rows, value=value, ceiling=ceiling)
    label = _LABEL[metric]
    if row is None:
        return (f"the {label} interval's coverage was not measured below {min(c.rows for c in TABLE)} seeds: "
                "read it as approximate")
    if row.adequate:
        return ""
    where = "" if row.regime == "all" else f" with {row.regime}"
    return (f"the {label} interval covered the truth in {row.mean:.2f} of synthetic ensembles{where} at "
            f"S = {row.rows} (range {row.low:.2f}-{row.high:.2f} over {row.cells} truth/noise cells), not 0.95: "
            "read it as approximate (docs/step0.md)")


__all__ = ["ADEQUATE", "Coverage", "METRICS", "SPEARMAN_CEILING", "TABLE", "W1_NEAR_BOUND", "caveat", "measured",
           "regime"]
