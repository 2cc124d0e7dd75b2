"""Architecture counterfactuals: the exact Step-0 profile under other attention priors.

The paper (Chowdhury, arXiv:2603.10123) attributes the Step-0 valley to the
causal mask and the residual stream, not to the position encoding. This
sweep swaps the Step-0 attention matrix A (:mod:`lostmid_jax.theory.priors`) and, for each
prior and depth H, summarizes the exact row w_j = (N_H ... N_1)[L, j],
N_l = (1 - a_l) I + a_l A: masses (:func:`lostmid_jax.theory.summarize_log_row`), and the
*dead zone*: the positions j < L whose density L w_j is below ``dead_below``
(1e-2: a hundred times below uniform). The verdict compares each prior's
dead zone with the causal one's, from these numbers only
(:mod:`.counterfactual_verdict`).

Writes results.csv (one row per prior and H), table.txt, verdict.txt and two figures.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np

from ..validation import check_float, check_int
from .configs import tuples_from_lists

NAME = "counterfactuals"
VERDICT_TITLE = "which priors remove or move the Step-0 dead zone"
_LN10 = math.log(10.0)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Config:
    """Arguments of the counterfactual sweep; validated at construction.

    Attributes:
      length: L >= 2 positions.
      depths: the H values, each >= 1.
      alpha: a in [0, 1] of the constant schedule, or a0 of the power law.
      power_b: None for constant a; else b >= 0 of a_l = alpha (l + 1)^-b.
      custom: a per-layer schedule used instead of alpha / power_b; depth H
        uses its first H entries, so it needs at least max(depths).
      priors: prior specs (causal, bidirectional, window:W, chunks:S or chunks:A+B+.., prefix:N,
        sinks:S[:W], alibi:N[:M1/M2/..]; :mod:`lostmid_jax.theory.prior_specs`) or prior objects, stored
        as specs; none means one of each, sized L/8 or L/4.
      profile_depth: the H of the profile figure and the verdict; None means
        max(depths). Added to the depths if missing.
      band: width in x of the primacy and late bands, in (0, 0.5).
      dead_below: density threshold of the dead zone, in (0, 1): a position
        j < L is dead when L w_j < dead_below.
    """

    length: int = 2048
    depths: tuple[int, ...] = (1, 2, 4, 8, 12, 16, 24)
    alpha: float = 0.5
    power_b: float | None = None
    custom: tuple[float, ...] | None = None
    priors: tuple | None = None
    profile_depth: int | None = None
    band: float = 0.1
    dead_below: float = 1e-2

    def __post_init__(self):
        from ..theory import check_band, parse_prior, power_law_schedule, prior_spec
        from ..theory.prior_specs import default_priors

        tuples_from_lists(self)
        length = check_int("length", self.length, 1)
        if length < 2:
            raise ValueError(f"length must be >= 2 (a middle needs positions besides the last), got {length}")
        depths = tuple(self.depths) if isinstance(self.depths, Sequence) else ()
        if not depths:
            raise ValueError(f"depths must be a non-empty sequence of integers >= 1, got {self.depths!r}")
        for h in depths:
            check_int("depths", h, 1)
        profile = max(depths) if self.profile_depth is None else check_int("profile_depth", self.profile_depth, 1)
        check_float("alpha", self.alpha, 0, 1)
        if self.power_b is not None:
            try:
                power_law_schedule(1, self.alpha, self.power_b)  # validates b
            except ValueError as err:
                raise ValueError(f"power_b: {err}") from None
        if self.custom is not None:
            for i, a in enumerate(self.custom):
                check_float(f"custom[{i}]", a, 0, 1)
            if len(self.custom) < max(*depths, profile):
                raise ValueError(f"custom has {len(self.custom)} entries; it needs max(depths) = {max(*depths, profile)}")
            object.__setattr__(self, "custom", tuple(self.custom))
        specs = default_priors(length) if self.priors is None else tuple(
            p if isinstance(p, str) else prior_spec(p) for p in self.priors)
        if not specs:
            raise ValueError("priors must not be empty")
        try:
            specs = tuple(prior_spec(parse_prior(s, length)) for s in specs)  # validates for L
        except ValueError as err:
            raise ValueError(f"priors: {err}") from None
        if len(set(specs)) != len(specs):
            raise ValueError(f"priors must be distinct, got {specs}")
        object.__setattr__(self, "band", check_band(self.band))
        check_float("dead_below", self.dead_below, 0, 1, open_min=True, open_max=True)
        from ..theory.resources import check_operations

        work = len(specs) * sum(10.0 * h * length for h in set(depths) | {profile})  # ~10 ns per H L entry
        check_operations(f"length={length} x depths (max {max(*depths, profile)})", work)
        object.__setattr__(self, "depths", tuple(sorted(set(depths) | {profile})))
        object.__setattr__(self, "profile_depth", profile)
        object.__setattr__(self, "priors", specs)

    def schedule(self, depth: int):
        """alpha for depth H: a number (constant) or a tuple of H per-layer values."""
        from ..theory import power_law_schedule

        if self.custom is not None:
            return self.custom[:depth]
        if self.power_b is not None:
            return power_law_schedule(depth, self.alpha, self.power_b)
        return self.alpha

    @property
    def schedule_label(self) -> str:
        if self.custom is not None:
            return "custom a_l"
        if self.power_b is not None:
            return f"a_l = {self.alpha:g} (l+1)^-{self.power_b:g}"
        return f"a={self.alpha:g}"

    def prior_objects(self) -> tuple:
        """The priors as objects, in order."""
        from ..theory import parse_prior

        return tuple(parse_prior(s, self.length) for s in self.priors)


SMOKE = {"length": 128, "depths": (1, 4, 16)}
SMOKE_HELP = "L=128, H in 1,4,16"


def dead_zone(log_row: np.ndarray, dead_below: float) -> dict:
    """Dead-zone statistics of a row [L] of log w_j, last token excluded.

    Returns:
      dead_fraction: share of j < L with L w_j < dead_below;
      zero_fraction: share of j < L with w_j = 0 exactly (no path);
      dead_x_min, dead_x_max: extent in x = j/L of the dead positions (nan
        if none); dead_x_mean: their mean x;
      log10_min_density: log10 min_{j<L} L w_j (-inf if a zero).
    """
    length = log_row.size
    body = np.asarray(log_row[:-1], dtype=np.float64)
    x = np.arange(1, length) / length
    dead = body + math.log(length) < math.log(dead_below)
    any_dead = bool(dead.any())
    return {
        "dead_fraction": float(dead.mean()) if body.size else 0.0,
        "zero_fraction": float(np.mean(body == -np.inf)) if body.size else 0.0,
        "dead_x_min": float(x[dead].min()) if any_dead else math.nan,
        "dead_x_max": float(x[dead].max()) if any_dead else math.nan,
        "dead_x_mean": float(x[dead].mean()) if any_dead else math.nan,
        "log10_min_density": (float(body.min()) + math.log(length)) / _LN10 if body.size else math.nan,
    }


def profile_record(cfg: Config, spec: str, depth: int, log_row: np.ndarray | None = None) -> dict:
    """One results row: (prior, H) with the profile summary and dead-zone numbers."""
    from ..theory import log_influence_row, parse_prior, summarize_log_row

    prior = parse_prior(spec, cfg.length)
    if log_row is None:
        log_row = log_influence_row(cfg.length, depth, cfg.schedule(depth), prior=prior)
    record = {"prior": spec, "label": prior.label, "depth": depth, "schedule": cfg.schedule_label}
    record.update(summarize_log_row(log_row, band=cfg.band).as_dict())
    record.update(dead_zone(log_row, cfg.dead_below))
    return record


@dataclasses.dataclass(frozen=True)
class Result:
    """What :func:`run` returns.

    Attributes:
      config: the sweep's arguments.
      records: one dict per (prior, H), prior-major.
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

    from ..theory import log_influence_row, parse_prior

    keep = set(profile_depths(cfg))
    points = [(spec, depth) for spec in cfg.priors for depth in cfg.depths]
    records, profiles = [], {spec: {} for spec in cfg.priors}
    for spec, depth in tqdm(points, desc="counterfactual priors", disable=not progress, leave=False):
        log_row = log_influence_row(cfg.length, depth, cfg.schedule(depth), prior=parse_prior(spec, cfg.length))
        records.append(profile_record(cfg, spec, depth, log_row))
        if depth in keep:
            profiles[spec][depth] = log_row
    return Result(cfg, records, profiles)


def records(result: Result) -> dict[str, list[dict]]:
    """results.csv."""
    return {"results.csv": result.records}


def _num(value: float, spec: str) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "-"
    if value == -math.inf:
        return "-inf"
    return format(value, spec)


def summary(result: Result) -> str:
    """The profile-depth summary per prior, then middle density and dead share against H."""
    cfg = result.config
    depth = cfg.profile_depth
    at = {r["prior"]: r for r in result.records if r["depth"] == depth}
    head = (f"{'prior':<30}{'recency':>10}{'primacy':>9}{'middle':>9}{'late':>8}{'log10 mid':>11}"
            f"{'log10 min':>11}{'dead %':>8}{'dead x':>13}{'zero %':>8}")
    lines = [f"L={cfg.length}, H={depth}, {cfg.schedule_label}; masses over x bands of {cfg.band:g}; "
             f"density L w_j (uniform = 1); dead: L w_j < {cfg.dead_below:g}; mid: x = 1/2; min over j < L",
             head, "-" * len(head)]
    for spec in cfg.priors:
        r = at[spec]
        extent = "-" if math.isnan(r["dead_x_min"]) else f"{r['dead_x_min']:.2f}-{r['dead_x_max']:.2f}"
        lines.append(f"{r['label']:<30}{r['recency_weight']:>10.2e}{r['primacy_mass']:>9.4f}{r['middle_mass']:>9.4f}"
                     f"{r['late_mass']:>8.4f}{_num(r['log10_middle_density'], '11.2f'):>11}{_num(r['log10_min_density'], '11.2f'):>11}"
                     f"{100 * r['dead_fraction']:>8.1f}{extent:>13}{100 * r['zero_fraction']:>8.1f}")
    for key, title, spec_fmt in (("log10_middle_density", "log10 density at x=1/2 against H", "8.2f"),
                                 ("dead_fraction", "dead positions (%) against H", "8.1f")):
        grid = {(r["prior"], r["depth"]): r[key] for r in result.records}
        head = f"{'prior':<30}" + "".join(f"{'H=' + str(h):>8}" for h in cfg.depths)
        lines += ["", title, head, "-" * len(head)]
        for spec in cfg.priors:
            values = [grid[(spec, h)] * (100 if key == "dead_fraction" else 1) for h in cfg.depths]
            lines.append(f"{at[spec]['label']:<30}" + "".join(f"{_num(v, spec_fmt):>8}" for v in values))
    return "\n".join(lines)



def verdict(result: Result) -> list[str]:
    """The causal baseline, one line per other prior, and a grouped summary (:mod:`.counterfactual_verdict`)."""
    from .counterfactual_verdict import verdict_lines

    return verdict_lines(result)


def figures(result: Result, run_dir) -> list:
    """The two PNG figures (:mod:`lostmid_jax.plots.counterfactuals`)."""
    from ..plots.counterfactuals import all_figures

    return all_figures(result, run_dir)


def describe(result: Result) -> str:
    return f"{len(result.records)} points"
