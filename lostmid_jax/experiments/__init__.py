"""One module per experiment: a frozen config, run(cfg, run_dir) -> result, records, verdict, figures.

    from lostmid_jax import experiments
    exp = experiments.load("depth_sweep")                 # the module (imported on demand)
    cfg = exp.Config(depths=(1, 2, 4), lengths=(256,))
    result = experiments.execute(exp, cfg, "runs/mine")   # writes the run directory, prints the verdict

Each experiment module defines:

    NAME                    its run directory folder and config.json "experiment"
    Config                  keyword-only frozen dataclass; lists accepted for tuples
    SMOKE                   {dotted field: value} of the seconds-long size (--smoke)
    run(cfg, run_dir, *, progress=True, mesh=None) -> Result   (Result.config is cfg)
    records(result)  -> {file name: list of flat dicts}       (CSV files)
    summary(result)  -> str                                   (table.txt, printed)
    verdict(result)  -> list[str]                             (verdict.txt, printed)
    figures(result, run_dir) -> list[Path]                    (PNG files)

and optionally ``resolve(cfg) -> cfg`` ("auto" values replaced by what will run,
before the run directory is claimed), ``run_info(result)`` (extra config.json
entries), ``RESUMABLE`` (the same run directory and config resume an unfinished
run; any other non-empty directory is refused) and ``USES_DEVICES`` (--devices).
The experiments:

    depth_sweep          exact Step-0 profile over depth, a and L (the main job)
    counterfactuals      the same under other attention priors
    step0                Jacobian profiles of initialized decoders vs theory
    pretrained_vs_init   Hugging Face weights vs a random init of the same architecture
    micro_training       how the profile and each pathway evolve over the first steps

Importing this package or an experiment's module imports no jax; the work does.
"""

from __future__ import annotations

import importlib

# module name -> (`lostmid` subcommand, one-line description)
EXPERIMENTS = {
    "depth_sweep": ("sweep", "sweep depth, a and L over the exact Step-0 profile (the main job)"),
    "counterfactuals": ("counterfactuals", "the Step-0 profile under other attention priors (masks, sinks, ALiBi)"),
    "step0": ("step0", "Step-0 Jacobian influence profiles of initialized decoders vs theory"),
    "pretrained_vs_init": ("compare", "influence profile of pretrained HF weights vs a random init, vs theory"),
    "micro_training": ("train", "micro-training: how the U and each pathway evolve"),
}


def load(name: str):
    """The experiment module ``name`` (a key of :data:`EXPERIMENTS`)."""
    if name not in EXPERIMENTS:
        raise ValueError(f"experiment must be one of {tuple(EXPERIMENTS)}, got {name!r}")
    return importlib.import_module(f"{__name__}.{name}")


def execute(exp, cfg, run_dir, **kwargs):
    """Run ``cfg`` of experiment module ``exp`` into ``run_dir`` (see :func:`.runner.execute`)."""
    from .runner import execute as _execute

    return _execute(exp, cfg, run_dir, **kwargs)


__all__ = ["EXPERIMENTS", "execute", "load"]
