"""Micro-training: how the U, and each pathway, evolve over the first 100 steps.

Trains the baseline and each intervention (middle-weighted loss, oversampled
middle needles, middle-first curriculum) for every seed on a synthetic corpus
of documents plus key-value retrieval (Optax AdamW, orbax checkpoints), and
snapshots the influence profile, the value / score pathways, the attention
strength and the retrieval accuracy by needle bin. Each (intervention, seed)
trains in <run_dir>/<intervention>/seed<k>/ (metrics.jsonl, snapshots.jsonl,
ckpt/) with identical seeds, data streams and evaluation set; the same run
directory resumes every run from its last checkpoint.

Writes snapshots.csv, profiles.csv, strength.csv, accuracy.csv, documents.csv
(columns in :data:`COLUMNS`; positions j, layers, needle bins and documents
1-based), verdict.txt (:mod:`.claims`) and the figures
(:mod:`lostmid_jax.plots.training`).

    config.py    which runs (Config, SMOKE)      legacy_flags.py   the flag spellings of earlier releases
    measure.py   the training runs (run -> Result)
    tables.py    the CSV rows
    claims.py    the verdict and the report page's table
    columns.py   what every CSV column means (COLUMNS)
    figures.py   the figures, from the tables alone
"""

from __future__ import annotations

import dataclasses

from ...train.config import INTERVENTIONS
from .columns import COLUMNS
from .config import SMOKE, Config
from .figures import figures
from .legacy_flags import LEGACY_FLAGS
from .measure import Result, run
from .tables import profile_rows, records, snapshot_rows

NAME = "micro_training"
VERDICT_TITLE = "micro-training: the valley, the pathways and retrieval, mean [95% CI] over seeds"
SMOKE_HELP = "one layer of width 16, 5 steps, 2 seeds, one intervention"
RESUMABLE = True
USES_DEVICES = True
CLI_ALIASES = {"task": "base.task", "steps": "base.steps", "depth": "base.model.depth", "width": "base.model.width",
               "heads": "base.model.heads", "lr": "base.lr", "snapshots": "base.snapshot_steps"}
CLI_LEGACY = LEGACY_FLAGS  # the leaf names of earlier releases (--kind, --init, ...): accepted, not listed
CLI_HIDDEN = frozenset({"base.seed", "base.intervention"})
FILES = {variant: f"the '{variant}' training runs: seed<k>/ with train_config.json, metrics.jsonl, "
                  "snapshots.jsonl and ckpt/ (lostmid_jax.train.load_trained reads them back)"
         for variant in INTERVENTIONS}


def summary(result: Result) -> str:
    return ""


def verdict(result: Result) -> list[str]:
    from .claims import verdict as claims_verdict

    return claims_verdict(result.config, result.records)


def page_title(cfg: Config) -> str:
    """The report page's title (:func:`.claims.page_title`)."""
    from .claims import page_title as title

    return title(cfg)


def page_table(tables: dict, cfg: Config):
    """The report page's results table (:func:`.claims.page_table`)."""
    from .claims import page_table as table

    return table(tables, cfg)


def resolve(cfg: Config) -> Config:
    """The config with attn_impl "auto" replaced by the implementation that runs (this may build
    the fused kernel: :func:`lostmid_jax.train.resolve_attn_impl`)."""
    from ...train import resolve_attn_impl

    return dataclasses.replace(cfg, base=cfg.base.replace(attn_impl=resolve_attn_impl(cfg.base)))


def run_info(result: Result) -> dict:
    return {"attn_impl_used": result.attn_impl}


def describe(result: Result) -> str:
    return f"{len(result.runs)} runs x {result.config.base.steps} steps"


__all__ = ["COLUMNS", "Config", "NAME", "Result", "SMOKE", "SMOKE_HELP", "VERDICT_TITLE", "describe", "figures",
           "page_table", "page_title", "profile_rows", "records", "resolve", "run", "run_info", "snapshot_rows",
           "summary", "verdict"]
