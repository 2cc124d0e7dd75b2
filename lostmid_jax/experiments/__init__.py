"""One module per experiment: a frozen config, run(cfg, run_dir) -> result, records, verdict, figures.

    from lostmid_jax import experiments
    import lostmid_jax.runs
    exp = experiments.load("depth_sweep")                 # the module (imported on demand)
    cfg = exp.Config(depths=(1, 2, 4), lengths=(256,))
    result = experiments.execute(exp, cfg, "runs/mine")   # writes the run directory, prints the verdict
    run = lostmid_jax.runs.load_run("runs/mine")          # ... and reads it back as typed tables

Each experiment module defines:

    NAME                    its run directory folder and config.json "experiment"
    Config                  keyword-only frozen dataclass; lists accepted for tuples
    SMOKE                   {dotted field: value} of the small size (--smoke)
    run(cfg, run_dir, *, progress=True, mesh=None) -> Result   (Result.config is cfg)
    records(result)  -> {file name: list of flat dicts}       (CSV files; None / NaN -> empty field)
    COLUMNS                 {CSV file name: {column: (meaning, unit)}}, every column of
                            every CSV ("" unit: dimensionless); the runner writes columns.csv
    summary(result)  -> str                                   (table.txt, printed)
    verdict(result)  -> list[str]                             (verdict.txt, printed)
    figures(tables, cfg) -> {file stem: matplotlib Figure}    drawn from ``tables`` alone
                            (CSV stem -> pandas.DataFrame, what lostmid_jax.runs.load_run gives),
                            so ``lostmid plot RUN_DIR`` redraws them; saved as PNG at 150 dpi

and optionally ``resolve(cfg) -> cfg`` ("auto" values replaced by what will run,
before the run directory is claimed), ``run_info(result)`` (extra config.json
entries), ``FILES`` ({top-level name: what it is} for files and folders the
experiment writes itself, shown in the list of files that ends each run),
``RESUMABLE`` (the same run directory and config resume an unfinished run; any
other non-empty directory is refused) and ``USES_DEVICES`` (--devices). Long
set-up steps (building models, compiling) announce themselves with
``logging.getLogger(__name__).info(...)``: the runner shows those lines while a
run prints.

The experiments:

    depth_sweep          exact Step-0 profile over depth, a and L (the main job)
    counterfactuals      the same under other attention priors
    step0                Jacobian profiles of initialized decoders vs theory
    step0_study          Step-0 noise, convergence and theory variants on held-out seeds
    pretrained_vs_init   Hugging Face weights vs a random init of the same architecture
    micro_training       how the profile and each pathway evolve over the first steps
    remedies             inference-time remedies on a trained model, paired against it
    diagnose             a trained model: lost in the middle? attention received, valley fits, its prior's share

Importing this package or an experiment's module imports no jax; the work does.
"""

from __future__ import annotations

import importlib

from ..runs.registry import register

# module name -> (`lostmid` subcommand, one-line description)
EXPERIMENTS = {
    "depth_sweep": ("sweep", "sweep depth, a and L over the exact Step-0 profile (the main job)"),
    "counterfactuals": ("counterfactuals", "the Step-0 profile under other attention priors (masks, sinks, ALiBi)"),
    "step0": ("step0", "Step-0 Jacobian influence profiles of initialized decoders vs theory"),
    "step0_study": ("step0-study", "Step-0 noise, convergence and theory variants scored on held-out seeds"),
    "pretrained_vs_init": ("compare", "influence profile of pretrained HF weights vs a random init, vs theory"),
    "micro_training": ("train", "micro-training: how the U and each pathway evolve"),
    "remedies": ("remedies", "inference-time remedies (RoPE, markers, reordering, sinks) paired against the model"),
    "diagnose": ("diagnose", "a trained model: position-controlled retrieval, attention received, valley fits, "
                             "the architecture's share of its valley"),
}


def load(name: str):
    """The experiment module ``name`` (a key of :data:`EXPERIMENTS`)."""
    if name not in EXPERIMENTS:
        raise ValueError(f"experiment must be one of {tuple(EXPERIMENTS)}, got {name!r}")
    return importlib.import_module(f"{__name__}.{name}")


register(EXPERIMENTS, load)  # passed in to runs/ (load_run), which imports no experiment


def execute(exp, cfg, run_dir, **kwargs):
    """Run ``cfg`` of experiment module ``exp`` into ``run_dir`` (see :func:`.runner.execute`)."""
    from .runner import execute as _execute

    return _execute(exp, cfg, run_dir, **kwargs)


__all__ = ["EXPERIMENTS", "execute", "load"]
