"""The counterfactual sweep's table and plain-language verdict, computed from its numbers.

At the profile depth H each prior's dead zone D (positions j < L with
L w_j < dead_below) is compared with the causal one C:

    removes   |D| < 1% of the positions
    creates   the causal row has no dead zone (|C| < 1%) but this one does
    moves     most of D was alive under the causal mask: |D n C| < |D| / 2
    shrinks   |D| <= |C| / 2
    widens    |D| >= 1.5 |C|
    keeps     otherwise

Nothing is fixed in advance: change L, H, a or the threshold and the
words follow the numbers. A closing line states the dead-zone share of each
decoder family's prior (:data:`.config.FAMILIES`) present in the
sweep. The dead zone and its factorial depth law are docs/theory.md §4; the
exact O(H L) rows, docs/theory.md §2.
"""

from __future__ import annotations

import math

import numpy as np

from ...stats.format import fmt
from ...theory import Causal, log_influence_row
from ...theory.middle import middle_index
from .config import FAMILIES
from ...theory.dead_zones import dead_zone
from .measure import Result

CATEGORIES = ("removes", "creates", "moves", "shrinks", "widens", "keeps")


def _dead_mask(log_row: np.ndarray, dead_below: float) -> np.ndarray:
    return log_row[:-1] + math.log(log_row.size) < math.log(dead_below)


def classify(dead: np.ndarray, causal_dead: np.ndarray) -> str:
    """One of :data:`CATEGORIES` for boolean dead masks [L-1] of a prior and of Causal().

    >>> classify(np.zeros(4, bool), np.ones(4, bool))
    'removes'
    >>> classify(np.array([False, False, False, True]), np.array([False, True, True, True]))
    'shrinks'
    """
    share, causal_share = dead.mean(), causal_dead.mean()
    if share < 0.01:
        return "removes"
    if causal_share < 0.01:
        return "creates"
    if (dead & causal_dead).sum() < dead.sum() / 2:
        return "moves"
    if share <= causal_share / 2:
        return "shrinks"
    if share >= 1.5 * causal_share:
        return "widens"
    return "keeps"


def _describe(stats: dict) -> str:
    if stats["dead_fraction"] == 0:
        return f"no dead position (min density 10^{stats['log10_min_density']:.1f})"
    share = stats["dead_fraction"]
    text = (f"{share:.{0 if share >= 0.01 else 1}%} of positions dead, x in [{stats['dead_x_min']:.2f}, "
            f"{stats['dead_x_max']:.2f}], centred at x={stats['dead_x_mean']:.2f}")
    if stats["zero_fraction"] > 0:
        text += f"; {stats['zero_fraction']:.0%} exactly 0 (no attention path)"
    return text


def _dead_depths(records: list[dict], spec: str) -> str:
    depths = [str(r["depth"]) for r in records if r["prior"] == spec and r["dead_fraction"] >= 0.01]
    return f"a dead zone (>= 1% of positions) at H = {', '.join(depths)}" if depths else "no dead zone at any H swept"


def _nan(value) -> float:
    return math.nan if value is None else value


def _shift(stats: dict, base: dict) -> str:
    """' and shifts it toward the end/start' when the dead zone's centre moves by > 0.15 in x."""
    delta = _nan(stats["dead_x_mean"]) - _nan(base["dead_x_mean"])
    if not abs(delta) > 0.15:  # also False for nan (no dead zone)
        return ""
    return f" and shifts it toward the {'end' if delta > 0 else 'start'}"


def _log10(value: float) -> str:
    return "exactly 0" if value == -math.inf else f"10^{value:.1f}"


def verdict_lines(result: Result) -> list[str]:
    """Lines: the causal baseline, one line per other prior, and a grouped summary."""
    cfg = result.config
    depth = cfg.profile_depth
    rows = {spec: result.profiles[spec][depth] for spec in cfg.priors}
    base = rows.get("causal")
    if base is None:
        base = log_influence_row(cfg.length, depth, cfg.schedule(depth), prior=Causal())
    base_dead = _dead_mask(base, cfg.dead_below)
    at_depth = {r["prior"]: r for r in result.records if r["depth"] == depth}
    base_stats = dead_zone(base, cfg.dead_below)
    base_middle = (float(base[middle_index(cfg.length) - 1]) + math.log(cfg.length)) / math.log(10)
    history = f"; {_dead_depths(result.records, 'causal')}" if "causal" in rows else ""
    lines = [
        f"Dead zone: positions j < L with density L w_j < {cfg.dead_below:g} (uniform = 1; docs/theory.md §4), "
        f"from the exact rows (docs/theory.md §2). L={cfg.length}, H={depth}, {cfg.schedule_label}.",
        f"causal (baseline): {_describe(base_stats)}; density at x=1/2 {_log10(base_middle)}{history}.",
    ]
    groups = {c: [] for c in CATEGORIES}
    for spec, row in rows.items():
        if spec == "causal":
            continue
        rec = at_depth[spec]
        category = classify(_dead_mask(row, cfg.dead_below), base_dead)
        groups[category].append(rec["label"])
        shift = _shift(rec, base_stats) if category in ("shrinks", "keeps", "widens") else ""
        lines.append(
            f"{rec['label']}: {category} the dead zone{shift}: {_describe(rec)}; density at x=1/2 "
            f"{_log10(rec['log10_middle_density'])} (causal {_log10(base_middle)}); "
            f"{_dead_depths(result.records, spec)}."
        )
    summary = "; ".join(f"{c}: {', '.join(names)}" for c, names in groups.items() if names)
    lines.append(f"Summary at H={depth}: {summary or 'no prior besides causal'}.")
    families = [f"{name} {100 * at_depth[spec]['dead_fraction']:.0f}%" for name, spec in FAMILIES.items()
                if spec in at_depth]
    if families:
        lines.append(f"Decoder families at L={cfg.length}, H={depth} (dead-zone share of each family's Step-0 "
                     f"prior): {'; '.join(families)}.")
    return lines




def _causal_here(prior, length: int) -> bool:
    """Whether a mask prior other than Causal() allows exactly the causal keys at this L (a window >= L, ...)."""
    from ...masks import Causal

    return prior != Causal() and prior.causal_at(length)


def family_table(result: Result) -> list[str]:
    """The closing table: each family's prior and its dead-zone share at the profile depth and L."""
    cfg = result.config
    depth = cfg.profile_depth
    at = {r["prior"]: r for r in result.records if r["depth"] == depth}
    shown = [(name, spec) for name, spec in FAMILIES.items() if spec in at]
    if not shown:
        return []
    from ...theory import parse_prior

    labels = {spec: at[spec]["label"] + (" (= causal here)" if _causal_here(parse_prior(spec, cfg.length), cfg.length)
                                         else "") for _, spec in shown}
    width = 2 + max(len(label) for label in labels.values())
    head = f"{'family':<32}{'prior':<{width}}{'dead %':>8}{'log10 mid':>11}{'log10 min':>11}"
    lines = [f"Dead-zone share of each family's Step-0 prior at L={cfg.length}, H={depth}, {cfg.schedule_label} "
             f"(dead: L w_j < {cfg.dead_below:g}, j < L; docs/theory.md §4)", head, "-" * len(head)]
    for name, spec in shown:
        r = at[spec]
        lines.append(f"{name:<32}{labels[spec]:<{width}}{100 * r['dead_fraction']:>8.1f}"
                     f"{fmt(r['log10_middle_density'], '11.2f'):>11}{fmt(r['log10_min_density'], '11.2f'):>11}")
    return lines


def table(result: Result) -> str:
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
                     f"{r['late_mass']:>8.4f}{fmt(r['log10_middle_density'], '11.2f'):>11}{fmt(r['log10_min_density'], '11.2f'):>11}"
                     f"{100 * r['dead_fraction']:>8.1f}{extent:>13}{100 * r['zero_fraction']:>8.1f}")
    for key, title, spec_fmt in (("log10_middle_density", "log10 density at x=1/2 against H", "8.2f"),
                                 ("dead_fraction", "dead positions (%) against H", "8.1f")):
        grid = {(r["prior"], r["depth"]): r[key] for r in result.records}
        head = f"{'prior':<{width}}" + "".join(f"{'H=' + str(h):>8}" for h in cfg.depths)
        lines += ["", title, head, "-" * len(head)]
        for spec in cfg.priors:
            values = [grid[(spec, h)] * (100 if key == "dead_fraction" else 1) for h in cfg.depths]
            lines.append(f"{at[spec]['label']:<{width}}" + "".join(f"{fmt(v, spec_fmt):>8}" for v in values))
    family = family_table(result)
    return "\n".join(lines + ([""] + family if family else []))
