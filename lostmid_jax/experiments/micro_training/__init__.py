"""Micro-training: how the U, and each pathway, evolve over the first 100 steps.

Trains the baseline and each intervention (middle-weighted loss, oversampled
middle needles, middle-first curriculum) for every seed on a synthetic corpus
of documents plus key-value retrieval (Optax AdamW, orbax checkpoints), and
snapshots the influence profile, the value / score pathways, the attention
strength and the retrieval accuracy by needle bin. Each (intervention, seed)
trains in <run_dir>/<intervention>/seed<k>/ (metrics.jsonl, snapshots.jsonl,
ckpt/) with identical seeds, data streams and evaluation set; the same run
directory resumes every run from its last checkpoint.

Writes snapshots.csv, profiles.csv, verdict.txt (:mod:`.claims`) and the figures.
"""

from __future__ import annotations

import dataclasses
import pathlib

from ...train.config import INTERVENTIONS, SMOKE as TRAIN_SMOKE, TrainConfig
from ...validation import check_choice, check_int
from ..configs import tuples_from_lists

NAME = "micro_training"
VERDICT_TITLE = "micro-training: the valley, the pathways and retrieval, mean +- SE over seeds"
SMOKE_HELP = "width 32, 6 steps, 2 seeds, one intervention"
RESUMABLE = True
USES_DEVICES = True
CLI_ALIASES = {"snapshots": "base.snapshot_steps"}
CLI_HIDDEN = frozenset({"base.seed", "base.intervention"})


@dataclasses.dataclass(frozen=True, kw_only=True)
class Config:
    """Which runs to train.

    Attributes:
      base: the baseline TrainConfig (its intervention and seed are replaced per run).
      seeds: seeds shared by every intervention (at least one; distinct ints >= 0).
      interventions: drawn from middle_loss, oversample_middle, curriculum ('' for none); the
        baseline "none" always runs first.
    """

    base: TrainConfig = TrainConfig()
    seeds: tuple[int, ...] = (0, 1, 2)
    interventions: tuple[str, ...] = ("middle_loss", "oversample_middle", "curriculum")

    def __post_init__(self):
        tuples_from_lists(self)
        if not isinstance(self.base, TrainConfig):
            raise ValueError(f"base must be a TrainConfig (or a dict of its fields), got {type(self.base).__name__}")
        if not self.seeds or len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f"seeds must be distinct ints >= 0 (at least one), got {self.seeds!r}")
        for s in self.seeds:
            check_int("seeds", s, 0)
        for name in self.interventions:
            check_choice("interventions", name, INTERVENTIONS)

    @property
    def variants(self) -> tuple[str, ...]:
        """"none" followed by the other interventions, in order, without repeats."""
        return ("none",) + tuple(dict.fromkeys(v for v in self.interventions if v != "none"))


SMOKE = {**{f"base.{k}": v for k, v in TRAIN_SMOKE.items()}, "seeds": (0, 1), "interventions": ("middle_loss",)}


@dataclasses.dataclass(frozen=True)
class Result:
    """What :func:`run` returns.

    Attributes:
      config: the run's Config.
      records: flat snapshot records (one per intervention, seed and snapshot step).
      runs: {(intervention, seed): train.RunResult}.
      attn_impl: the attention implementation the runs used ("auto" resolved).
    """

    config: Config
    records: list[dict]
    runs: dict
    attn_impl: str


def run(cfg: Config, run_dir, *, progress: bool = True, mesh=None) -> Result:
    """Train every (intervention, seed) into ``run_dir`` (resuming), data-parallel over ``mesh``."""
    from ...parallel import is_process0, using_mesh
    from ...train import resolve_attn_impl, train

    out_dir = pathlib.Path(run_dir)
    attn_impl = resolve_attn_impl(cfg.base)
    base = cfg.base.replace(attn_impl=attn_impl)
    records, runs = [], {}
    with using_mesh(mesh):
        for variant in cfg.variants:
            for seed in cfg.seeds:
                res = train(base.replace(intervention=variant, seed=seed), out_dir / variant / f"seed{seed}",
                            progress=progress and is_process0())
                runs[(variant, seed)] = res
                for snap in res.snapshots:
                    records.append({"intervention": variant, "seed": seed,
                                    **{k: v for k, v in snap.items() if k != "profiles"}})
    return Result(cfg, records, runs, attn_impl)


def profile_rows(runs: dict) -> list[dict]:
    """Long table: intervention, seed, step, position, total, value, score."""
    rows = []
    for (variant, seed), res in runs.items():
        for snap in res.snapshots:
            p = snap["profiles"]
            rows += [{"intervention": variant, "seed": seed, "step": snap["step"], "position": j,
                      "total": p["total"][j], "value": p["value"][j], "score": p["score"][j]}
                     for j in range(len(p["total"]))]
    return rows


def records(result: Result) -> dict[str, list[dict]]:
    """snapshots.csv and profiles.csv."""
    return {"snapshots.csv": result.records, "profiles.csv": profile_rows(result.runs)}


def summary(result: Result) -> str:
    return ""


def verdict(result: Result) -> list[str]:
    from .claims import verdict as claims_verdict

    return claims_verdict(result.config, result.records)


def figures(result: Result, run_dir) -> list:
    from ...plots.training import all_figures
    from ...train import tasks

    base = result.config.base
    return all_figures(result.records, profile_rows(result.runs), result.config, tasks.boundaries(base), run_dir,
                       chance=tasks.chance_accuracy(base))


def resolve(cfg: Config) -> Config:
    """The config with attn_impl "auto" replaced by the implementation that runs (this may build
    the fused kernel: :func:`lostmid_jax.train.resolve_attn_impl`)."""
    from ...train import resolve_attn_impl

    return dataclasses.replace(cfg, base=cfg.base.replace(attn_impl=resolve_attn_impl(cfg.base)))


def run_info(result: Result) -> dict:
    return {"attn_impl_used": result.attn_impl}


def describe(result: Result) -> str:
    return f"{len(result.runs)} runs x {result.config.base.steps} steps"
