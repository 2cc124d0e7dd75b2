"""``lostmid step0`` (= ``python sims/step0_jacobian.py``): Step-0 Jacobian influence profiles.

Writes one run directory with config.json, units/*.npz (one per preset,
variant and seed; a rerun with the same --out resumes), profiles.csv,
metrics.csv, alphas.csv, table.txt, verdict.txt and the figures, and prints
the table and the verdict on the paper's Step-0 claims.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import resource
import time

from .. import io
from ._runs import add_devices_argument, mesh_from_args
from ..analysis.step0_config import DEFAULT_PLANS, SMOKE, Step0Config


def register(subparsers) -> None:
    p = subparsers.add_parser("step0", help="Step-0 Jacobian influence profiles of initialized decoders vs theory",
                              description=__doc__.splitlines()[0])
    add_arguments(p)
    p.set_defaults(func=run)


def add_arguments(p: argparse.ArgumentParser) -> None:
    plans = "; ".join(f"{k}: L={v['length']} {v['method']} seeds={v['seeds']} {','.join(v['variants'])}"
                      for k, v in DEFAULT_PLANS.items())
    p.add_argument("--preset", type=str, default=None,
                   help=f"comma-separated presets (default all; smoke: toy). Defaults per preset: {plans}")
    p.add_argument("--length", type=int, default=None, help="L (overrides the presets' defaults)")
    p.add_argument("--method", type=str, default=None, help="exact, randomized or one-pass")
    p.add_argument("--probes", type=int, default=None, help="Gaussian probes for randomized")
    p.add_argument("--seeds", type=int, default=None, help="number of seeds 0..N-1")
    p.add_argument("--variants", type=str, default=None, help="comma-separated: native, nopos, rope, rope:T, learned")
    p.add_argument("--input", type=str, default="tokens", help="tokens (embedded random tokens) or gaussian")
    p.add_argument("--dtype", type=str, default="float32", help="parameter / compute dtype")
    p.add_argument("--chunk", type=int, default=None, help="cotangents per batched backward (default automatic)")
    split = p.add_mutually_exclusive_group()
    split.add_argument("--no-split", action="store_true", help="total pathway only (skip value / score: about half the cost)")
    split.add_argument("--split", action="store_true",
                       help="also value / score pathways for every preset (default: all but qwen2-0.5b)")
    p.add_argument("--heat-length", type=int, default=None, help="positions in the attention heatmap (default 256)")
    p.add_argument("--out", type=str, default=None, help="run directory (default <root>/step0/<timestamp>); reuse it to resume")
    p.add_argument("--root", type=str, default="runs", help="parent of the default run directory")
    p.add_argument("--smoke", action="store_true", help="a seconds-long run (L=48, 2 seeds, 4 probes)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument("--no-figures", action="store_true", help="skip the PNG figures")
    add_devices_argument(p)


def config_from_args(args) -> Step0Config:
    """Build (and so validate) the config before any work starts."""
    fields = {}
    if args.smoke:
        fields.update(length=SMOKE["length"], probes=SMOKE["probes"], seeds=SMOKE["seeds"],
                      heat_length=SMOKE["heat_length"], presets=("toy",),
                      variants=SMOKE["variants"])
    if args.preset is not None:
        fields["presets"] = tuple(p.strip() for p in args.preset.split(",") if p.strip())
    for name in ("length", "method", "probes", "seeds", "chunk"):
        if getattr(args, name) is not None:
            fields[name] = getattr(args, name)
    if args.variants is not None:
        fields["variants"] = tuple(v.strip() for v in args.variants.split(",") if v.strip())
    if args.heat_length is not None:
        fields["heat_length"] = args.heat_length
    split = False if args.no_split else (True if args.split else None)  # None: each preset's default
    return Step0Config(input=args.input, param_dtype=args.dtype, split=split, **fields)


def _check_resume(run_dir, cfg: Step0Config) -> None:
    path = run_dir / "config.json"
    if path.exists():
        old = json.loads(path.read_text()).get("config")
        new = json.loads(json.dumps(io._jsonable(cfg)))
        if old != new:
            raise ValueError(f"out: {run_dir} holds a run with a different configuration; use another --out")


def run(args) -> int:
    import jax

    from ..analysis import step0, step0_report, step0_verdict
    from ..parallel import is_process0

    cfg = config_from_args(args)
    mesh = mesh_from_args(args)
    if cfg.param_dtype == "float64":
        jax.config.update("jax_enable_x64", True)
    start = time.perf_counter()
    run_dir = io.make_run_dir(args.root, "step0", args.out)
    _check_resume(run_dir, cfg)
    writer = is_process0()
    if writer:
        io.write_config(run_dir, cfg, smoke=args.smoke, status="running")
    results = step0.run_all(cfg, run_dir, progress=not args.no_progress and writer, mesh=mesh)
    if not writer:
        return 0
    plans = {p.preset: p for p in cfg.plans()}
    summaries = step0_report.summarize(results, cfg.band)
    io.write_csv(run_dir / "profiles.csv", step0_report.profile_records(summaries))
    io.write_csv(run_dir / "metrics.csv", step0_report.metric_records(summaries, plans))
    io.write_csv(run_dir / "alphas.csv", step0_report.alpha_records(summaries))
    text = step0_verdict.table(summaries)
    lines = step0_verdict.verdict(summaries)
    (run_dir / "table.txt").write_text(text + "\n")
    (run_dir / "verdict.txt").write_text("\n".join(lines) + "\n")
    figures = [] if args.no_figures else _figures(summaries, run_dir)
    elapsed = time.perf_counter() - start
    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    io.write_config(run_dir, cfg, smoke=args.smoke, status="done", seconds=round(elapsed, 3),
                    peak_rss_gb=round(peak_gb, 2), figures=[f.name for f in figures])
    print(text)
    print("\nVerdict (paper's Step-0 claims, native variant of each preset):")
    for line in lines:
        print(line)
    print(f"\n{sum(len(v) for v in results.values())} units in {elapsed:.1f} s, peak RSS {peak_gb:.2f} GB -> {run_dir}")
    return 0


def _figures(summaries, run_dir):
    from ..plots.step0 import all_figures

    return all_figures(summaries, run_dir)


def main(argv: list[str] | None = None) -> int:
    """Run as a script (``python sims/step0_jacobian.py``)."""
    parser = argparse.ArgumentParser(prog="step0_jacobian", description=__doc__.splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:  # validate before any work
        cfg = config_from_args(args)
        if args.out is not None:
            _check_resume(pathlib.Path(args.out), cfg)
    except ValueError as err:
        parser.exit(2, f"step0_jacobian: error: {err}\n")
    return run(args)
