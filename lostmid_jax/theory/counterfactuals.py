"""Architecture counterfactuals: the Step-0 profile under other attention priors.

The paper (Chowdhury, arXiv:2603.10123) attributes the Step-0 valley to the
causal mask and the residual stream, not to the position encoding. This
sweep swaps the Step-0 attention matrix A (:mod:`.priors`) and, for each
prior and depth H, summarizes the exact row w_j = (N_H ... N_1)[L, j],
N_l = (1 - a_l) I + a_l A: masses (:func:`.summarize_log_row`), and the
*dead zone*: the positions j < L whose density L w_j is below ``dead_below``
(1e-2: a hundred times below uniform). The verdict compares each prior's
dead zone with the causal one's, from these numbers only.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
from tqdm.auto import tqdm

from ._validate import _check_one_alpha, check_depth, check_length
from .influence import log_influence_row
from .prior_specs import default_priors, parse_prior, prior_spec
from .priors import Causal
from .schedules import power_law_schedule
from .summary import _check_band, summarize_log_row

_LN10 = math.log(10.0)


@dataclasses.dataclass(frozen=True, kw_only=True)
class CounterfactualConfig:
    """Arguments of the counterfactual sweep; validated at construction.

    Attributes:
      length: L >= 2 positions.
      depths: the H values, each >= 1.
      alpha: a in [0, 1] of the constant schedule, or a0 of the power law.
      power_b: None for constant a; else b >= 0 of a_l = alpha (l + 1)^-b.
      custom: a per-layer schedule used instead of alpha / power_b; depth H
        uses its first H entries, so it needs at least max(depths).
      priors: prior specs (:mod:`.prior_specs`) or prior objects, stored as
        specs; None means :func:`.default_priors` for L.
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
        length = check_length(self.length)
        if length < 2:
            raise ValueError(f"length must be >= 2 (a middle needs positions besides the last), got {length}")
        depths = tuple(self.depths) if isinstance(self.depths, Sequence) else ()
        if not depths:
            raise ValueError(f"depths must be a non-empty sequence of integers >= 1, got {self.depths!r}")
        for h in depths:
            if check_depth(h) < 1:
                raise ValueError(f"depths must all be >= 1, got {h}")
        profile = max(depths) if self.profile_depth is None else check_depth(self.profile_depth)
        if profile < 1:
            raise ValueError(f"profile_depth must be >= 1, got {profile}")
        _check_one_alpha(self.alpha, "alpha")
        if self.power_b is not None:
            power_law_schedule(1, self.alpha, self.power_b)  # validates b
        if self.custom is not None:
            for i, a in enumerate(self.custom):
                _check_one_alpha(a, f"custom[{i}]")
            if len(self.custom) < max(*depths, profile):
                raise ValueError(f"custom has {len(self.custom)} entries; it needs max(depths) = {max(*depths, profile)}")
            object.__setattr__(self, "custom", tuple(self.custom))
        specs = default_priors(length) if self.priors is None else tuple(
            p if isinstance(p, str) else prior_spec(p) for p in self.priors)
        if not specs:
            raise ValueError("priors must not be empty")
        specs = tuple(prior_spec(parse_prior(s, length)) for s in specs)  # validates for L
        if len(set(specs)) != len(specs):
            raise ValueError(f"priors must be distinct, got {specs}")
        _check_band(self.band)
        if not (isinstance(self.dead_below, (int, float)) and 0 < self.dead_below < 1):
            raise ValueError(f"dead_below must be a number in (0, 1), got {self.dead_below!r}")
        object.__setattr__(self, "depths", tuple(sorted(set(depths) | {profile})))
        object.__setattr__(self, "profile_depth", profile)
        object.__setattr__(self, "priors", specs)

    def schedule(self, depth: int):
        """alpha for depth H: a number (constant) or a tuple of H per-layer values."""
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
        return tuple(parse_prior(s, self.length) for s in self.priors)


SMOKE = dict(length=128, depths=(1, 4, 16))


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


def profile_record(cfg: CounterfactualConfig, spec: str, depth: int, log_row: np.ndarray | None = None) -> dict:
    """One results row: (prior, H) with the profile summary and dead-zone numbers."""
    prior = parse_prior(spec, cfg.length)
    if log_row is None:
        log_row = log_influence_row(cfg.length, depth, cfg.schedule(depth), prior=prior)
    record = {"prior": spec, "label": prior.label, "depth": depth, "schedule": cfg.schedule_label}
    record.update(summarize_log_row(log_row, band=cfg.band).as_dict())
    record.update(dead_zone(log_row, cfg.dead_below))
    return record


@dataclasses.dataclass(frozen=True)
class CounterfactualResult:
    """What :func:`run_sweep` returns.

    Attributes:
      config: the sweep's arguments.
      records: one dict per (prior, H), prior-major.
      profiles: prior spec -> {H: log row [L]} for the depths the figure draws.
    """

    config: CounterfactualConfig
    records: list[dict]
    profiles: dict[str, dict[int, np.ndarray]]


def profile_depths(cfg: CounterfactualConfig, count: int = 4) -> tuple[int, ...]:
    """Up to ``count`` depths for the profile figure, ending at the profile depth."""
    shown = [h for h in cfg.depths if h <= cfg.profile_depth]
    idx = np.unique(np.round(np.linspace(0, len(shown) - 1, min(count, len(shown)))).astype(int))
    return tuple(shown[i] for i in idx)


def run_sweep(cfg: CounterfactualConfig, *, progress: bool = True) -> CounterfactualResult:
    """Every (prior, H) row of the sweep, with a tqdm bar over the points."""
    keep = set(profile_depths(cfg))
    points = [(spec, depth) for spec in cfg.priors for depth in cfg.depths]
    records, profiles = [], {spec: {} for spec in cfg.priors}
    for spec, depth in tqdm(points, desc="counterfactual priors", disable=not progress, leave=False):
        log_row = log_influence_row(cfg.length, depth, cfg.schedule(depth), prior=parse_prior(spec, cfg.length))
        records.append(profile_record(cfg, spec, depth, log_row))
        if depth in keep:
            profiles[spec][depth] = log_row
    return CounterfactualResult(cfg, records, profiles)
