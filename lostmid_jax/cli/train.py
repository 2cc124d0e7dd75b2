"""``lostmid train`` (= ``python sims/micro_training.py``): micro-training dynamics.

Trains the baseline and each intervention for every seed (Optax AdamW, orbax
checkpoints), snapshots the influence profile, value / score pathways,
attention strength and retrieval accuracy by depth, and writes one run
directory: config.json, snapshots.csv, profiles.csv, verdict.txt, figures and
<intervention>/seed<k>/{metrics.jsonl, snapshots.jsonl, ckpt/}. Re-running the
same command with the same --out resumes every run from its last checkpoint.
"""

from __future__ import annotations

import argparse
import time

from .. import io
from ._runs import add_devices_argument, add_run_arguments, mesh_from_args, script_main
from .args import int_list


def register(subparsers) -> None:
    p = subparsers.add_parser("train", help="micro-training: how the U and each pathway evolve",
                              description=__doc__.splitlines()[0])
    add_arguments(p)
    p.set_defaults(func=run)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--task", type=str, default=None, help="lm, retrieval or mixed (default mixed)")
    p.add_argument("--steps", type=int, default=None, help="optimizer steps (default 100)")
    p.add_argument("--seeds", type=str, default=None, help="seeds shared by all runs, e.g. '0-2' (default)")
    p.add_argument("--interventions", type=str, default=None,
                   help="comma-separated from middle_loss,oversample_middle,curriculum (default all; '' for none)")
    p.add_argument("--snapshots", type=str, default=None, help="snapshot steps (default 0,1,2,5,10,20,50,100)")
    p.add_argument("--chunk", type=int, default=None, help="document length N of the LM corpus (default 300)")
    p.add_argument("--lr", type=float, default=None, help="peak learning rate (default 1e-2)")
    p.add_argument("--kv-format", type=str, default=None, dest="kv_format",
                   help="retrieval format: keyed (default; learnable in 100 steps) or shared (Liu et al.)")
    p.add_argument("--width", type=int, default=None, help="model width D (default 64)")
    p.add_argument("--attn-impl", type=str, default=None, dest="attn_impl",
                   help="attention of the trained model: auto (default; the fused CPU kernel where it builds), "
                        "blocked or fused_cpu")
    add_run_arguments(p, "micro_training", "width 32, 6 steps, 2 seeds, one intervention")
    add_devices_argument(p)


def config_from_args(args):
    """Build (and so validate) the ExperimentConfig before any work starts."""
    from ..train import SMOKE, SMOKE_EXPERIMENT, ExperimentConfig, TrainConfig

    fields = dict(SMOKE) if args.smoke else {}
    for name in ("task", "steps", "chunk", "lr", "width", "kv_format", "attn_impl"):
        if getattr(args, name) is not None:
            fields[name] = getattr(args, name)
    if args.snapshots is not None:
        fields["snapshot_steps"] = int_list(args.snapshots)
    exp = dict(SMOKE_EXPERIMENT) if args.smoke else {}
    exp["base"] = TrainConfig(**fields)
    if args.seeds is not None:
        exp["seeds"] = int_list(args.seeds)
    if args.interventions is not None:
        exp["interventions"] = tuple(v.strip() for v in args.interventions.split(",") if v.strip())
    return ExperimentConfig(**exp)


def run(args) -> int:
    from ..parallel import is_process0, using_mesh
    from ..train import profile_rows, run_experiment, tasks, verdict

    exp = config_from_args(args)
    mesh = mesh_from_args(args)  # data-parallel training steps over --devices
    start = time.perf_counter()
    run_dir = io.make_run_dir(args.root, "micro_training", args.out)
    with using_mesh(mesh):
        records, runs = run_experiment(exp, run_dir, progress=not args.no_progress and is_process0())
    if not is_process0():
        return 0
    io.write_csv(run_dir / "snapshots.csv", records)
    prof = profile_rows(runs)
    io.write_csv(run_dir / "profiles.csv", prof)
    lines = verdict(exp, records)
    (run_dir / "verdict.txt").write_text("\n".join(lines) + "\n")
    figures = []
    if not args.no_figures:
        from ..plots.training import all_figures

        figures = all_figures(records, prof, exp, tasks.boundaries(exp.base), run_dir)
    elapsed = time.perf_counter() - start
    io.write_config(run_dir, exp, smoke=args.smoke, seconds=round(elapsed, 3), figures=[f.name for f in figures],
                    attn_impl_used=exp.base.resolved_attn_impl)
    print("Verdict (micro-training, theory.md section 5):")
    for line in lines:
        print(f"  {line}")
    print(f"\n{len(runs)} runs x {exp.base.steps} steps in {elapsed:.1f} s -> {run_dir}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run as a script (``python sims/micro_training.py``)."""
    return script_main("micro_training", __doc__.splitlines()[0], add_arguments, config_from_args, run, argv)
