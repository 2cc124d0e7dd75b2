"""Architecture counterfactuals: the exact Step-0 profile under other attention priors.

The paper (Chowdhury, arXiv:2603.10123) attributes the Step-0 valley to the
causal mask and the residual stream, not to the position encoding. This
sweep swaps the Step-0 attention matrix A (:mod:`lostmid_jax.theory.priors`,
:mod:`lostmid_jax.theory.content`) and, for each prior and depth H,
summarizes the exact row w_j = (N_H ... N_1)[L, j], N_l = (1 - a_l) I + a_l A,
computed in O(H L) (docs/theory.md §2): masses
(:func:`lostmid_jax.theory.summarize_log_row`), and the *dead zone*: the
positions j < L whose density L w_j is below ``dead_below`` (1e-2: a hundred
times below uniform; docs/theory.md §4). The verdict compares each prior's
dead zone with the causal one's, from these numbers only
(:mod:`.counterfactual_verdict`).

The default priors are one of each mask, the ALiBi slopes of the ALiBi paper
against the geometric 2^(-8h/N) for a head count that is not a power of two
(BLOOM-176B's 112), a causal prior with a self bonus, and the prior of each
popular decoder family (:data:`FAMILIES`): Llama and Qwen3 (causal), Mistral
(a window of 4096), BLOOM and MPT (ALiBi with their head counts). The
closing table states each family's dead-zone share.

Writes results.csv (one row per prior and H), profiles.csv (the rows figure 1
draws), table.txt, verdict.txt and three figures drawn from the CSVs. Every
column is described in :data:`COLUMNS`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np

from ..validation import check_float, check_int
from ..runs.config import tuples_from_lists

NAME = "counterfactuals"
VERDICT_TITLE = "which priors remove or move the Step-0 dead zone"
_LN10 = math.log(10.0)

FAMILIES = {
    "Llama 3 (causal, RoPE)": "causal",
    "Qwen3 (causal, RoPE)": "causal",
    "Mistral 7B (window 4096)": "window:4096",
    "BLOOM-560m (ALiBi, 16 heads)": "alibi:16",
    "MPT-7B (ALiBi, 32 heads)": "alibi:32",
    "BLOOM-176B (ALiBi, 112 heads)": "alibi:112",
}
"""Decoder family -> the spec of its Step-0 prior (what ``analysis.prior_for`` gives its config)."""

EXTRA_PRIORS = ("alibi:112:geometric", "content:diag=2.0")
"""Default rows beside the masks and the families: the geometric ALiBi slopes (to compare with the
paper's at 112 heads) and a causal prior with a self bonus of 2 on the logits."""

PROFILE_POINTS = 512
"""profiles.csv keeps at most about this many positions per row (every k-th j, and j = L)."""

_SUMMARY_COLUMNS = {
    "length": ("context length L", "tokens"),
    "recency_weight": ("influence weight of the last token, w_L (the recency delta)", ""),
    "log10_recency_weight": ("log10 of recency_weight", "log10"),
    "primacy_mass": ("influence mass at x <= band", ""),
    "middle_mass": ("influence mass at band < x < 1 - band", ""),
    "late_mass": ("influence mass at 1 - band <= x < 1 (last token excluded)", ""),
    "middle_x": ("x = j/L nearest 1/2, where the middle density is read", ""),
    "log10_middle_density": ("log10 of the influence density L w_j at middle_x (-inf where w_j = 0)", "log10"),
    "valley_x": ("x = j/L of the smallest weight", ""),
    "log10_valley_density": ("log10 of the density at valley_x (-inf where it is 0)", "log10"),
    "log10_peak_to_trough": ("log10 of max_j w_j / min_j w_j (inf if an entry is 0)", "log10"),
}

COLUMNS = {
    "results.csv": {
        "prior": ("prior spec (lostmid_jax.theory.prior_specs), e.g. causal, window:256, alibi:16", ""),
        "label": ("readable name of the prior", ""),
        "family": ("decoder families whose Step-0 prior this is, '; '-separated; empty for none", ""),
        "depth": ("depth H", "layers"),
        "schedule": ("attention weights a_l of the layers, e.g. a=0.5", ""),
        **_SUMMARY_COLUMNS,
        "dead_fraction": ("share of positions j < L in the dead zone, L w_j < dead_below (docs/theory.md §4)", ""),
        "zero_fraction": ("share of positions j < L with w_j = 0 exactly (no attention path to the last token)", ""),
        "dead_x_min": ("smallest x = j/L in the dead zone; empty when there is none", ""),
        "dead_x_max": ("largest x = j/L in the dead zone; empty when there is none", ""),
        "dead_x_mean": ("mean x = j/L of the dead zone; empty when there is none", ""),
        "log10_min_density": ("log10 of min over j < L of L w_j (-inf if one is 0)", "log10"),
    },
    "profiles.csv": {
        "prior": ("prior spec, as in results.csv", ""),
        "label": ("readable name of the prior", ""),
        "depth": ("depth H", "layers"),
        "length": ("context length L", "tokens"),
        "j": ("input position, 1..L (every k-th position and j = L, at most ~512 per row)", "position"),
        "x": ("normalized position j/L", ""),
        "log10_density": ("log10 of L w_j, the influence density (-inf where w_j = 0; j = L: the last token)", "log10"),
    },
}
"""CSV file -> column -> (meaning, unit) of everything this experiment writes."""


def default_priors(length: int) -> tuple[str, ...]:
    """One of each mask (:func:`lostmid_jax.theory.default_priors`), the family priors, and :data:`EXTRA_PRIORS`."""
    from ..theory.prior_specs import default_priors as mask_priors

    specs = list(mask_priors(length))
    for spec in (*FAMILIES.values(), *EXTRA_PRIORS):
        if spec not in specs:
            specs.append(spec)
    return tuple(specs)


def families_of(spec: str) -> list[str]:
    """The :data:`FAMILIES` whose prior is ``spec``."""
    return [name for name, family_spec in FAMILIES.items() if family_spec == spec]


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
        sinks:S[:W], alibi:N[:geometric | :M1/M2/..], content[:MASK]:K=V:..;
        :mod:`lostmid_jax.theory.prior_specs`) or prior objects, stored as specs; none means
        :func:`default_priors` (one of each mask sized L/8 or L/4, the family priors, the extra rows).
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
            objects = [parse_prior(s, length) for s in specs]  # validates for L
            specs = tuple(prior_spec(p) for p in objects)
        except ValueError as err:
            raise ValueError(f"priors: {err}") from None
        if len(set(specs)) != len(specs):
            raise ValueError(f"priors must be distinct, got {specs}")
        object.__setattr__(self, "band", check_band(self.band))
        check_float("dead_below", self.dead_below, 0, 1, open_min=True, open_max=True)
        from ..resources import check_operations

        heads = sum(getattr(p, "n_heads", getattr(p, "heads", 1)) for p in objects)  # ALiBi, Content: per head
        work = heads * sum(100.0 * h * length for h in set(depths) | {profile})  # ~100 ns per head and H L entry
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
    """One results row: (prior, H) with the profile summary and dead-zone numbers (None where undefined)."""
    from ..theory import log_influence_row, parse_prior, summarize_log_row

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
    """results.csv and profiles.csv (the rows of figure 1)."""
    labels = {r["prior"]: r["label"] for r in result.records}
    rows = [row for spec, by_depth in result.profiles.items() for depth, log_row in sorted(by_depth.items())
            for row in profile_rows(spec, labels[spec], depth, log_row)]
    return {"results.csv": result.records, "profiles.csv": rows}


def _num(value, spec: str) -> str:
    if value is None or isinstance(value, float) and math.isnan(value):
        return "-"
    if value == -math.inf:
        return "-inf"
    return format(value, spec)


def _causal_here(prior, length: int) -> bool:
    """Whether a mask prior other than Causal() allows exactly the causal keys at this L (a window >= L, ...)."""
    from ..masks import Causal

    return prior != Causal() and prior.causal_at(length)


def family_table(result: Result) -> list[str]:
    """The closing table: each family's prior and its dead-zone share at the profile depth and L."""
    cfg = result.config
    depth = cfg.profile_depth
    at = {r["prior"]: r for r in result.records if r["depth"] == depth}
    shown = [(name, spec) for name, spec in FAMILIES.items() if spec in at]
    if not shown:
        return []
    from ..theory import parse_prior

    labels = {spec: at[spec]["label"] + (" (= causal here)" if _causal_here(parse_prior(spec, cfg.length), cfg.length)
                                         else "") for _, spec in shown}
    width = 2 + max(len(label) for label in labels.values())
    head = f"{'family':<32}{'prior':<{width}}{'dead %':>8}{'log10 mid':>11}{'log10 min':>11}"
    lines = [f"Dead-zone share of each family's Step-0 prior at L={cfg.length}, H={depth}, {cfg.schedule_label} "
             f"(dead: L w_j < {cfg.dead_below:g}, j < L; docs/theory.md §4)", head, "-" * len(head)]
    for name, spec in shown:
        r = at[spec]
        lines.append(f"{name:<32}{labels[spec]:<{width}}{100 * r['dead_fraction']:>8.1f}"
                     f"{_num(r['log10_middle_density'], '11.2f'):>11}{_num(r['log10_min_density'], '11.2f'):>11}")
    return lines


def summary(result: Result) -> str:
    """The profile-depth summary per prior, middle density and dead share against H, and the family table."""
    cfg = result.config
    depth = cfg.profile_depth
    at = {r["prior"]: r for r in result.records if r["depth"] == depth}
    width = max(30, 2 + max(len(r["label"]) for r in result.records))
    head = (f"{'prior':<{width}}{'recency':>10}{'primacy':>9}{'middle':>9}{'late':>8}{'log10 mid':>11}"
            f"{'log10 min':>11}{'dead %':>8}{'dead x':>13}{'zero %':>8}")
    lines = [f"L={cfg.length}, H={depth}, {cfg.schedule_label}; masses over x bands of {cfg.band:g}; "
             f"density L w_j (uniform = 1); dead: L w_j < {cfg.dead_below:g}; mid: x = 1/2; min over j < L",
             head, "-" * len(head)]
    for spec in cfg.priors:
        r = at[spec]
        extent = "-" if r["dead_x_min"] is None else f"{r['dead_x_min']:.2f}-{r['dead_x_max']:.2f}"
        lines.append(f"{r['label']:<{width}}{r['recency_weight']:>10.2e}{r['primacy_mass']:>9.4f}{r['middle_mass']:>9.4f}"
                     f"{r['late_mass']:>8.4f}{_num(r['log10_middle_density'], '11.2f'):>11}{_num(r['log10_min_density'], '11.2f'):>11}"
                     f"{100 * r['dead_fraction']:>8.1f}{extent:>13}{100 * r['zero_fraction']:>8.1f}")
    for key, title, spec_fmt in (("log10_middle_density", "log10 density at x=1/2 against H", "8.2f"),
                                 ("dead_fraction", "dead positions (%) against H", "8.1f")):
        grid = {(r["prior"], r["depth"]): r[key] for r in result.records}
        head = f"{'prior':<{width}}" + "".join(f"{'H=' + str(h):>8}" for h in cfg.depths)
        lines += ["", title, head, "-" * len(head)]
        for spec in cfg.priors:
            values = [grid[(spec, h)] * (100 if key == "dead_fraction" else 1) for h in cfg.depths]
            lines.append(f"{at[spec]['label']:<{width}}" + "".join(f"{_num(v, spec_fmt):>8}" for v in values))
    family = family_table(result)
    return "\n".join(lines + ([""] + family if family else []))


def verdict(result: Result) -> list[str]:
    """The causal baseline, one line per other prior, the families, and a grouped summary (:mod:`.counterfactual_verdict`)."""
    from .counterfactual_verdict import verdict_lines

    return verdict_lines(result)


def figures(tables: dict, cfg: Config) -> dict:
    """The three figures, drawn from the run's tables alone (:func:`lostmid_jax.plots.counterfactuals.figures`).

    ``tables``: {"results": DataFrame, "profiles": DataFrame} as ``lostmid_jax.runs.load_run`` returns them.
    Returns {"fig1_profiles": Figure, "fig2_valley_vs_depth": Figure, "fig3_family_dead_zone": Figure}.
    """
    from ..plots.counterfactuals import figures as draw

    return draw(tables, cfg)


def describe(result: Result) -> str:
    return f"{len(result.records)} points"
