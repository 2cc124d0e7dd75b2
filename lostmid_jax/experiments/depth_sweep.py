"""The depth sweep (the main job): the exact Step-0 profile summary over (schedule, H, L).

For every schedule (constant a, power-law a_l = a0 (l+1)^-b, or a custom
list), depth H and length L (plus the continuum limit) it records the
:class:`~lostmid_jax.theory.ProfileSummary` numbers together with the two
middle laws of :mod:`lostmid_jax.theory.middle_laws`, and states which law
holds where: the factorial law (ln 2)^(H-1)/(H-1)! of the all-attention path
(a = 1), or the geometric law (1-a)^H exp(2 sqrt(H a ln2/(1-a))) for a < 1
(docs/theory.md §4, proofs/08_factorial_middle.md).

Writes results.csv (one row per point; the continuum rows have an empty
``length`` and ``continuum`` True), profiles.csv (the influence rows that
figure 1 draws), table.txt, verdict.txt and four figures drawn from the CSVs.
Every column is described in :data:`COLUMNS`.
"""

from __future__ import annotations

import dataclasses
import math

from ..stats.format import fmt
from ..validation import check_float, check_int
from ..runs.config import tuples_from_lists

NAME = "depth_sweep"
VERDICT_TITLE = "the factorial middle law"
_LN10 = math.log(10.0)

_SUMMARY_COLUMNS = {
    "recency_weight": ("influence weight of the last token, w_L (the recency delta)", ""),
    "log10_recency_weight": ("log10 of recency_weight (finite where the weight underflows)", "log10"),
    "primacy_mass": ("influence mass at x <= band", ""),
    "middle_mass": ("influence mass at band < x < 1 - band", ""),
    "late_mass": ("influence mass at 1 - band <= x < 1 (last token excluded)", ""),
    "middle_x": ("x where the middle density is read: 1/2 (continuum) or the j/L nearest it", ""),
    "log10_middle_density": ("log10 of the influence density at middle_x: L w_j, or rho_H(1/2) in the continuum",
                             "log10"),
    "valley_x": ("x = j/L of the smallest weight (continuum: 1, the smooth part's infimum)", ""),
    "log10_valley_density": ("log10 of the density at valley_x (-inf where it is 0)", "log10"),
    "log10_peak_to_trough": ("log10 of max_j w_j / min_j w_j over the discrete row (inf if an entry is 0); "
                             "empty in the continuum, whose peak is infinite", "log10"),
}

COLUMNS = {
    "results.csv": {
        "schedule": ("schedule family: constant, power (a_l = a0 l^-b, l = 1..H) or custom", ""),
        "label": ("schedule label, e.g. a=0.5", ""),
        "alpha": ("constant a, or a0 of the power law; empty for custom", ""),
        "b": ("power-law exponent b; empty unless schedule is power", ""),
        "depth": ("depth H", "layers"),
        "length": ("context length L; empty for the continuum limit", "tokens"),
        "continuum": ("True for the continuum limit L -> infinity", ""),
        **_SUMMARY_COLUMNS,
        "log10_factorial_law": ("log10 of the factorial law (ln 2)^(H-1)/(H-1)! (docs/theory.md §4)", "log10"),
        "log10_geometric_law": ("log10 of the geometric law (1-a)^H exp(2 sqrt(H a ln2/(1-a))); empty unless "
                                "constant 0 < a < 1 and H >= 2 (docs/theory.md §4)", "log10"),
    },
    "profiles.csv": {
        "alpha": ("constant a of the profile", ""),
        "depth": ("depth H", "layers"),
        "length": ("context length L", "tokens"),
        "j": ("input position, 1..L", "position"),
        "x": ("normalized position j/L", ""),
        "log10_density": ("log10 of L w_j, the influence density at x (j = L: the last token, whose weight "
                          "holds the recency delta)", "log10"),
    },
}
"""CSV file -> column -> (meaning, unit) of everything this experiment writes."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class Config:
    """Arguments of the depth sweep.

    Attributes:
      depths: the H values, each >= 1 (default 1..64 plus 128 and 256).
      alphas: a values in [0, 1] for the constant schedules, and a0 for the power-law ones.
      power_b: exponent b of the power-law schedules a_l = a0 (l+1)^-b; none skips them.
      custom: an optional per-layer schedule; layer l of every depth uses
        custom[l], so it needs at least max(depths) entries.
      lengths: the discrete L values (each >= 2); the continuum limit is always added.
      band: width in x of the primacy and late bands, in (0, 0.5).
    """

    depths: tuple[int, ...] = tuple(range(1, 65)) + (128, 256)
    alphas: tuple[float, ...] = (0.1, 0.25, 0.5, 0.75, 1.0)
    power_b: float | None = 0.5
    custom: tuple[float, ...] | None = None
    lengths: tuple[int, ...] = (2048,)
    band: float = 0.1

    def __post_init__(self):
        from ..theory import check_band, power_law_schedule

        self._check_rows()  # from the counts alone, before a million values are validated one by one
        tuples_from_lists(self)
        if not self.depths:
            raise ValueError("depths must not be empty")
        for h in self.depths:
            check_int("depths", h, 1)
        if not self.alphas:
            raise ValueError("alphas must not be empty")
        for i, a in enumerate(self.alphas):
            check_float(f"alphas[{i}]", a, 0, 1)
        if not self.lengths:
            raise ValueError("lengths must not be empty")
        for length in self.lengths:
            check_int("lengths", length, 2)  # L = 1 has no middle, no valley and no peak-to-trough
        if self.power_b is not None:
            try:
                power_law_schedule(1, 1.0, self.power_b)  # validates b
            except ValueError as err:
                raise ValueError(f"power_b: {err}") from None
        if self.custom is not None:
            for i, a in enumerate(self.custom):
                check_float(f"custom[{i}]", a, 0, 1)
            if len(self.custom) < max(self.depths):
                raise ValueError(f"custom has {len(self.custom)} entries; it needs max(depths) = {max(self.depths)}")
        object.__setattr__(self, "band", check_band(self.band))
        self._check_work()

    def _check_rows(self) -> None:
        """Refuse a sweep whose result rows alone (~1 ms of Python each) are over the work limit."""
        from ..resources import ROW_OPERATIONS, check_operations

        def count(value):
            return len(value) if isinstance(value, (list, tuple)) else 1

        schedules = count(self.alphas) * (2 if self.power_b is not None else 1) + (self.custom is not None)
        rows = schedules * count(self.depths) * (count(self.lengths) + 1)
        check_operations(f"{schedules} schedules x {count(self.depths)} depths x {count(self.lengths) + 1} lengths "
                         f"(the continuum included): {rows} rows", rows * ROW_OPERATIONS)

    def _check_work(self) -> None:
        """Refuse, before any work, a sweep over the work limit: ~10 ns per H L entry of a row, ~100 ns per
        H^2 of a continuum point, and ~1 ms of Python per result row (resources.ROW_OPERATIONS: one row
        per schedule, depth and L or the continuum); theory.limits / --limits raises the limit."""
        from ..resources import ROW_OPERATIONS, check_operations

        schedules = len(self.alphas) * (2 if self.power_b is not None else 1) + (self.custom is not None)
        per_schedule = sum(10.0 * h * sum(self.lengths) + 100.0 * h * h for h in self.depths)
        rows = schedules * len(self.depths) * (len(self.lengths) + 1)
        check_operations(f"{schedules} schedules x depths (max {max(self.depths)}, {len(self.depths)} values) x "
                         f"lengths (max {max(self.lengths)}, {len(self.lengths)} values): {rows} rows",
                         schedules * per_schedule + rows * ROW_OPERATIONS)


SMOKE = {"depths": (1, 2, 4, 8, 16, 32), "alphas": (0.25, 0.5, 1.0), "lengths": (256,)}
SMOKE_HELP = "H up to 32, L=256"


@dataclasses.dataclass(frozen=True)
class ScheduleSpec:
    """One schedule family: kind in {"constant", "power", "custom"}."""

    kind: str
    alpha: float | None = None
    b: float | None = None
    values: tuple[float, ...] | None = None

    def layers(self, depth: int):
        """The per-layer values for the first ``depth`` layers (a number if constant)."""
        from ..theory import power_law_schedule

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
    from ..theory import log_influence_row

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
    from ..theory.middle_laws import log_factorial_law, log_geometric_law

    factorial = log_factorial_law(depth) / _LN10
    geometric = math.nan
    if spec.kind == "constant" and 0 < spec.alpha < 1 and depth >= 2:
        geometric = log_geometric_law(depth, spec.alpha) / _LN10
    return factorial, geometric


def point_record(spec: ScheduleSpec, depth: int, length: int | None, band: float) -> dict:
    """One results row: the summary of (schedule, H, L) plus the middle laws; ``length`` None: the continuum."""
    from ..theory import continuum_summary, log_influence_row, summarize_log_row

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

    from ..runs.stop import checked

    points = [(spec, depth, length) for spec in schedule_specs(cfg) for depth in cfg.depths
              for length in (*cfg.lengths, None)]
    records = [point_record(spec, depth, length, cfg.band)
               for spec, depth, length in checked(tqdm(points, desc="depth sweep", disable=not progress, leave=False))]
    return Result(cfg, records, profile_records(cfg))


def records(result: Result) -> dict[str, list[dict]]:
    """results.csv and profiles.csv (runs.write_csv writes NaN as missing, like None)."""
    return {"results.csv": result.records, "profiles.csv": result.profiles}


def factorial_deviation(depth: int, dps: int = 50):
    """rho_H(1/2) (H-1)! / (ln 2)^(H-1) - 1 at a = 1, to ``dps`` digits (an mpmath number).

    rho is computed by the hop-sum engine (Poisson-binomial in mpmath), the
    law from mpmath's factorial: an independent check that is 0 to ~dps digits.
    """
    import mpmath

    from ..theory import continuum_density

    ctx = mpmath.MPContext()
    ctx.dps = dps + 10
    rho = continuum_density(ctx.mpf(1) / 2, depth, 1, dps=dps + 10)
    law = ctx.log(2) ** (depth - 1) / ctx.factorial(depth - 1)
    return ctx.mpf(rho) / law - 1


def verdict(result: Result) -> list[str]:
    """Plain-language lines: where the factorial middle law holds and where not.

    Computed from the records (continuum rows) and :func:`factorial_deviation`;
    nothing here is fixed in advance.
    """
    import mpmath

    cfg, rows = result.config, result.records
    lines = []
    depths = sorted(cfg.depths)
    h_lo, h_hi = depths[0], depths[-1]
    cont = {(r["label"], r["depth"]): r for r in rows if r["continuum"] and r["schedule"] == "constant"}
    length = cfg.lengths[0]
    disc = {(r["label"], r["depth"]): r for r in rows if r["length"] == length and r["schedule"] == "constant"}
    for a in sorted(set(float(a) for a in cfg.alphas)):
        label = f"a={a:g}"
        lo, hi = cont[(label, h_lo)], cont[(label, h_hi)]
        if a == 1.0:
            worst = max(abs(factorial_deviation(h)) for h in depths)
            d = disc[(label, h_hi)]
            finite_l = d["log10_middle_density"] - d["log10_factorial_law"]
            lines.append(
                f"a=1: the factorial law holds exactly in the continuum: "
                f"max over H in [{h_lo}, {h_hi}] of |rho_H(1/2) (H-1)!/(ln 2)^(H-1) - 1| = {mpmath.nstr(worst, 3)} (50-digit check). "
                f"At L={length} the discrete middle is 10^{finite_l:.2f} times the law at H={h_hi} (finite-L correction). "
                f"(docs/theory.md §4; proofs/08_factorial_middle.md)"
            )
        elif a == 0.0:
            lines.append("a=0: no attention, all influence on the last token; the middle is exactly 0.")
        else:
            gap = hi["log10_middle_density"] - hi["log10_factorial_law"]
            slope = (hi["log10_middle_density"] - lo["log10_middle_density"]) / max(h_hi - h_lo, 1)
            text = (
                f"a={a:g}: factorial law fails: at H={h_hi} the middle density is 10^{gap:.1f} times "
                f"(ln 2)^(H-1)/(H-1)!; it decays geometrically ({slope:.3f} decades per layer on average)"
            )
            ratios = [(h, 10 ** (cont[(label, h)]["log10_middle_density"] - cont[(label, h)]["log10_geometric_law"]))
                      for h in depths if h >= 2]
            if len(ratios) >= 2:
                (h_a, r_a), (h_b, r_b) = ratios[len(ratios) // 4], ratios[-1]
                trend = "tends to 1" if abs(r_b - 1) < abs(r_a - 1) else "does not approach 1"
                text += (
                    f"; exact / (1-a)^H exp(2 sqrt(H a ln2/(1-a))) law = {r_a:.4f} at H={h_a} and {r_b:.4f} at H={h_b}: "
                    f"the geometric law {'holds' if trend == 'tends to 1' else 'is not confirmed'} (ratio {trend}, error ~ H^-1/2)."
                )
            lines.append(text + ("" if text.endswith(".") else ".") + " (docs/theory.md §4)")
    return lines


def summary(result: Result) -> str:
    """A compact table of the constant-a schedules at a few depths."""
    cfg = result.config
    length = cfg.lengths[0]
    shown = set(pick_evenly(cfg.depths, 6))
    index = {(r["label"], r["depth"], r["length"]): r for r in result.records}
    head = (f"{'a':>5} {'H':>4} {'recency':>10} {'primacy':>9} {'log10 mid L':>12} {'log10 mid inf':>14} "
            f"{'valley x':>9} {'log10 p/t':>10}")
    lines = [f"constant a, L={length} and the continuum (mid = density at x=1/2)", head, "-" * len(head)]
    for a in cfg.alphas:
        for depth in sorted(shown):
            d = index[(f"a={a:g}", depth, length)]
            c = index[(f"a={a:g}", depth, None)]
            lines.append(
                f"{a:>5g} {depth:>4} {d['recency_weight']:>10.3e} {d['primacy_mass']:>9.4f} "
                f"{fmt(d['log10_middle_density'], '12.3f')} {fmt(c['log10_middle_density'], '14.3f')} "
                f"{d['valley_x']:>9.4f} {fmt(d['log10_peak_to_trough'], '10.2f')}"
            )
    return "\n".join(lines)


def figures(tables: dict, cfg: Config) -> dict:
    """The four figures, drawn from the run's tables alone (:func:`lostmid_jax.plots.depth_sweep.figures`).

    ``tables``: {"results": DataFrame, "profiles": DataFrame} as ``lostmid_jax.runs.load_run`` returns them.
    Returns {"fig1_u_curves": Figure, ..., "fig4_peak_to_trough": Figure}.
    """
    from ..plots.depth_sweep import figures as draw

    return draw(tables, cfg)


def describe(result: Result) -> str:
    return f"{len(result.records)} points"
