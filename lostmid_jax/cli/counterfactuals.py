"""``lostmid counterfactuals`` (= ``python sims/counterfactuals.py``): other attention priors.

Writes one run directory with config.json, results.csv, table.txt,
verdict.txt and two PNG figures, and prints the table and the verdict.
"""

from __future__ import annotations

import argparse
import math
import time

from .. import io
from ..theory.counterfactual_verdict import verdict
from ..theory.counterfactuals import SMOKE, CounterfactualConfig, CounterfactualResult, run_sweep
from ._runs import add_run_arguments, script_main
from .args import float_list, int_list


def register(subparsers) -> None:
    p = subparsers.add_parser("counterfactuals", help="the Step-0 profile under other attention priors (masks, sinks, ALiBi)",
                              description=__doc__.splitlines()[0])
    add_arguments(p)
    p.set_defaults(func=run)


def add_arguments(p: argparse.ArgumentParser) -> None:
    default = CounterfactualConfig()
    p.add_argument("--length", type=int, default=None, help=f"L, number of positions (default {default.length}; smoke {SMOKE['length']})")
    p.add_argument("--depths", type=str, default=None, help="H values, e.g. '1-8,16,24' (default 1,2,4,8,12,16,24)")
    p.add_argument("--alpha", type=float, default=default.alpha, help="a in [0, 1] (constant), or a0 of the power law")
    p.add_argument("--power-b", type=float, default=None, help="b >= 0: use a_l = alpha (l+1)^-b")
    p.add_argument("--custom", type=str, default=None, help="a per-layer schedule, comma-separated (>= max depth entries)")
    p.add_argument("--priors", type=str, default=None,
                   help="comma-separated prior specs: causal, bidirectional, window:W, chunks:S (or chunks:A+B+..), "
                        "prefix:N, sinks:S[:W], alibi:N[:M1/M2/..] (default: one of each, sized L/8 or L/4)")
    p.add_argument("--profile-depth", type=int, default=None, help="H of the profile figure and the verdict (default max depth)")
    p.add_argument("--band", type=float, default=default.band, help="primacy / late band width in x")
    p.add_argument("--dead-below", type=float, default=default.dead_below, help="dead-zone threshold on the density L w_j (uniform = 1)")
    add_run_arguments(p, "counterfactuals", "L=128, H in 1,4,16")


def config_from_args(args) -> CounterfactualConfig:
    """Build (and so validate) the config before any work starts."""
    fields = dict(SMOKE) if args.smoke else {}
    if args.length is not None:
        fields["length"] = args.length
    if args.depths is not None:
        fields["depths"] = int_list(args.depths)
    if args.custom is not None:
        fields["custom"] = float_list(args.custom)
    if args.priors is not None:
        fields["priors"] = tuple(p.strip() for p in args.priors.split(",") if p.strip())
    return CounterfactualConfig(alpha=args.alpha, power_b=args.power_b, profile_depth=args.profile_depth,
                                band=args.band, dead_below=args.dead_below, **fields)


def _num(value: float, spec: str) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "-"
    if value == -math.inf:
        return "-inf"
    return format(value, spec)


def summary_table(result: CounterfactualResult) -> str:
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


def run(args) -> int:
    cfg = config_from_args(args)
    start = time.perf_counter()
    run_dir = io.make_run_dir(args.root, "counterfactuals", args.out)
    result = run_sweep(cfg, progress=not args.no_progress)
    io.write_csv(run_dir / "results.csv", result.records)
    table = summary_table(result)
    lines = verdict(result)
    (run_dir / "table.txt").write_text(table + "\n")
    (run_dir / "verdict.txt").write_text("\n".join(lines) + "\n")
    figures = [] if args.no_figures else _figures(result, run_dir)
    elapsed = time.perf_counter() - start
    io.write_config(run_dir, cfg, smoke=args.smoke, seconds=round(elapsed, 3), figures=[f.name for f in figures])
    print(table)
    print("\nVerdict (which priors remove or move the Step-0 dead zone):")
    for line in lines:
        print(f"  {line}")
    print(f"\n{len(result.records)} points in {elapsed:.1f} s -> {run_dir}")
    return 0


def _figures(result, run_dir):
    from ..plots.counterfactuals import all_figures

    return all_figures(result, run_dir)


def main(argv: list[str] | None = None) -> int:
    """Run the sweep as a script (``python sims/counterfactuals.py``)."""
    return script_main("counterfactuals", __doc__.splitlines()[0], add_arguments, config_from_args, run, argv)
