"""``lostmid sweep`` (= ``python sims/depth_sweep.py``): the depth sweep.

Writes one run directory with config.json, results.csv, verdict.txt and four
PNG figures, and prints a summary table and the verdict.
"""

from __future__ import annotations

import argparse
import math
import time

from .. import io
from ..theory.sweep import CONTINUUM, SMOKE, DepthSweepConfig, sweep_records, verdict
from ._runs import add_run_arguments, script_main
from .args import float_list, int_list


def register(subparsers) -> None:
    p = subparsers.add_parser("sweep", help="sweep depth, a and L over the exact Step-0 profile",
                              description=__doc__.splitlines()[0])
    add_arguments(p)
    p.set_defaults(func=run)


def add_arguments(p: argparse.ArgumentParser) -> None:
    default = DepthSweepConfig()
    p.add_argument("--depths", type=str, default=None, help="H values, e.g. '1-64,128,256' (default)")
    p.add_argument("--alphas", type=str, default=None, help="a values in [0, 1] (default 0.1,0.25,0.5,0.75,1)")
    p.add_argument("--power-b", type=str, default=str(default.power_b), help="power-law exponent b, or 'none'")
    p.add_argument("--custom", type=str, default=None, help="a custom per-layer schedule, comma-separated")
    p.add_argument("--lengths", type=str, default=None, help="discrete L values (default 2048); the continuum is always added")
    p.add_argument("--band", type=float, default=default.band, help="primacy / late band width in x")
    add_run_arguments(p, "depth_sweep", "H up to 32, L=256")


def config_from_args(args) -> DepthSweepConfig:
    """Build (and so validate) the config before any work starts."""
    fields = dict(SMOKE) if args.smoke else {}
    if args.depths is not None:
        fields["depths"] = int_list(args.depths)
    if args.alphas is not None:
        fields["alphas"] = float_list(args.alphas)
    if args.lengths is not None:
        fields["lengths"] = int_list(args.lengths)
    if args.custom is not None:
        fields["custom"] = float_list(args.custom)
    b = args.power_b.strip().lower()
    fields["power_b"] = None if b == "none" else float_list(b)[0] if b else None
    fields["band"] = args.band
    return DepthSweepConfig(**fields)


def _fmt(value, spec):
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else format(value, spec)


def summary_table(cfg: DepthSweepConfig, records: list[dict]) -> str:
    """A compact table of the constant-a schedules at a few depths."""
    from ..plots.depth_sweep import _pick

    length = cfg.lengths[0]
    shown = set(_pick(cfg.depths, 6))
    index = {(r["label"], r["depth"], r["length"]): r for r in records}
    head = f"{'a':>5} {'H':>4} {'recency':>10} {'primacy':>9} {'log10 mid L':>12} {'log10 mid inf':>14} {'valley x':>9} {'log10 p/t':>10}"
    lines = [f"constant a, L={length} and the continuum (mid = density at x=1/2)", head, "-" * len(head)]
    for a in cfg.alphas:
        for depth in sorted(shown):
            d = index[(f"a={a:g}", depth, length)]
            c = index[(f"a={a:g}", depth, CONTINUUM)]
            lines.append(
                f"{a:>5g} {depth:>4} {d['recency_weight']:>10.3e} {d['primacy_mass']:>9.4f} "
                f"{_fmt(d['log10_middle_density'], '12.3f')} {_fmt(c['log10_middle_density'], '14.3f')} "
                f"{d['valley_x']:>9.4f} {_fmt(d['log10_peak_to_trough'], '10.2f')}"
            )
    return "\n".join(lines)


def run(args) -> int:
    cfg = config_from_args(args)
    start = time.perf_counter()
    run_dir = io.make_run_dir(args.root, "depth_sweep", args.out)
    records = sweep_records(cfg, progress=not args.no_progress)
    io.write_csv(run_dir / "results.csv", records)
    lines = verdict(cfg, records)
    (run_dir / "verdict.txt").write_text("\n".join(lines) + "\n")
    figures = [] if args.no_figures else _figures(records, cfg, run_dir)
    elapsed = time.perf_counter() - start
    io.write_config(run_dir, cfg, smoke=args.smoke, seconds=round(elapsed, 3), figures=[f.name for f in figures])
    print(summary_table(cfg, records))
    print("\nVerdict (factorial middle law, theory.md section 4):")
    for line in lines:
        print(f"  {line}")
    print(f"\n{len(records)} points in {elapsed:.1f} s -> {run_dir}")
    return 0


def _figures(records, cfg, run_dir):
    from ..plots.depth_sweep import all_figures

    return all_figures(records, cfg, run_dir)


def main(argv: list[str] | None = None) -> int:
    """Run the sweep as a script (``python sims/depth_sweep.py``)."""
    return script_main("depth_sweep", __doc__.splitlines()[0], add_arguments, config_from_args, run, argv)
