"""Measured coverage of the agreement intervals, and the caveat a verdict carries where it falls short.

A data-free table: for each statistic of :func:`lostmid_jax.stats.agreement.agreement` (Spearman, W1,
noise ceiling), each regime and each number of seeds S in {4, 8, 16}, the fraction of 200 synthetic
ensembles (L = 64) whose 95% interval held the true value, summarized over the cells of that regime
(3 truths: decreasing with a middle bump, U, nearly flat with a recency spike; 9 noises,
tests/stats/stats_helpers.ALL_KINDS: iid log-normal, seed-correlated, heavy-tailed, probe,
heteroscedastic, mixed, and the Step-0-like log-noise AR(1) along positions, heavy-tailed t_3 tilts
of each seed's log-profile, a noisy last position). Produced by

    python benchmarks/interval_coverage.py --rows 4 --out coverage.jsonl   # one run per S: 2-7 CPU-minutes
    python benchmarks/interval_coverage.py --rows 8 --out coverage.jsonl
    python benchmarks/interval_coverage.py --rows 16 --out coverage.jsonl
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
is >= 0.93 and its worst cell's >= 0.90 (a mean alone hides one noise under which it fails);
:func:`caveat` gives the text a verdict appends otherwise, quoting the mean and the worst cell with its
noise (docs/step0.md, "How well the intervals cover").
"""

from __future__ import annotations

import dataclasses
import math

ADEQUATE = 0.93  # mean coverage below which an interval's verdict carries a caveat
WORST_ADEQUATE = 0.90  # coverage of the worst cell below which it carries one too
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
        """mean >= ADEQUATE and low >= WORST_ADEQUATE: the interval is near 0.95 on average and in every cell."""
        return self.mean >= ADEQUATE and self.low >= WORST_ADEQUATE


# fmt: off
TABLE = (
    Coverage("spearman", "basic-k", "ceiling < 0.85", 4, 11, 0.644, 0.345, 0.970, "flat+recency/probe", (0.283, 0.413)),
    Coverage("spearman", "basic-k", "ceiling >= 0.85", 4, 16, 0.954, 0.910, 1.000, "u-shape/ar1-correlated", (0.862, 0.942)),
    Coverage("spearman", "basic-k", "ceiling < 0.85", 8, 10, 0.580, 0.220, 0.900, "flat+recency/probe", (0.168, 0.282)),
    Coverage("spearman", "basic-k", "ceiling >= 0.85", 8, 17, 0.938, 0.840, 0.990, "decreasing+bump/heteroscedastic", (0.783, 0.884)),
    Coverage("spearman", "basic-k", "ceiling < 0.85", 16, 7, 0.571, 0.280, 0.890, "flat+recency/probe", (0.222, 0.346)),
    Coverage("spearman", "basic-k", "ceiling >= 0.85", 16, 20, 0.906, 0.815, 0.960, "flat+recency/seed-tilt-heavy", (0.755, 0.863)),
    Coverage("wasserstein", "jack-t", "W1 < 0.05", 4, 9, 0.927, 0.900, 0.955, "decreasing+bump/iid-lognormal", (0.851, 0.934)),
    Coverage("wasserstein", "jack-t", "W1 >= 0.05", 4, 18, 0.956, 0.935, 0.980, "u-shape/seed-correlated", (0.892, 0.962)),
    Coverage("wasserstein", "jack-t", "W1 < 0.05", 8, 9, 0.907, 0.815, 0.950, "decreasing+bump/seed-correlated", (0.755, 0.863)),
    Coverage("wasserstein", "jack-t", "W1 >= 0.05", 8, 18, 0.946, 0.910, 0.985, "flat+recency/ar1-correlated", (0.862, 0.942)),
    Coverage("wasserstein", "jack-t", "W1 < 0.05", 16, 9, 0.873, 0.750, 0.945, "decreasing+bump/seed-tilt-heavy", (0.686, 0.805)),
    Coverage("wasserstein", "jack-t", "W1 >= 0.05", 16, 18, 0.942, 0.910, 0.960, "flat+recency/noisy-recency", (0.862, 0.942)),
    Coverage("ceiling", "jack", "all", 4, 27, 0.872, 0.395, 0.990, "decreasing+bump/seed-tilt-heavy", (0.330, 0.464)),
    Coverage("ceiling", "jack", "all", 8, 27, 0.775, 0.140, 0.960, "decreasing+bump/heteroscedastic", (0.099, 0.195)),
    Coverage("ceiling", "jack", "all", 16, 27, 0.732, 0.190, 0.970, "decreasing+bump/probe", (0.142, 0.250)),
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
    """'' where the interval of ``metric`` at ``rows`` seeds was measured adequate (mean coverage >= 0.93 and
    every cell >= 0.90, :attr:`Coverage.adequate`), else one sentence with the measured coverage, the mean
    and the worst cell with its noise: what a verdict keyed on that interval must say."""
    row = measured(metric, rows, value=value, ceiling=ceiling)
    label = _LABEL[metric]
    if row is None:
        return (f"the {label} interval's coverage was not measured below {min(c.rows for c in TABLE)} seeds: "
                "read it as approximate")
    if row.adequate:
        return ""
    where = "" if row.regime == "all" else f" with {row.regime}"
    return (f"the {label} interval covered the truth in {row.mean:.2f} of synthetic ensembles{where} at "
            f"S = {row.rows} on average, {row.low:.2f} in the worst of {row.cells} truth/noise cells "
            f"({row.worst}; range {row.low:.2f}-{row.high:.2f}), not 0.95: read it as approximate (docs/step0.md)")


__all__ = ["ADEQUATE", "Coverage", "METRICS", "SPEARMAN_CEILING", "TABLE", "W1_NEAR_BOUND", "WORST_ADEQUATE", "caveat",
           "measured", "regime"]
