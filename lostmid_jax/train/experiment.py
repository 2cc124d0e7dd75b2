"""Baseline and interventions over seeds: run directories, tables and the verdict.

    records, runs = run_experiment(ExperimentConfig(), out_dir)
    lines = verdict(exp, records)        # verdict.py

Each (intervention, seed) trains in out_dir/<intervention>/seed<k>/ (see
loop.py) with identical seeds, data streams and evaluation set.
"""

from __future__ import annotations

import dataclasses
import pathlib

from .config import INTERVENTIONS, SMOKE, TrainConfig
from .loop import RunResult, train


@dataclasses.dataclass(frozen=True, kw_only=True)
class ExperimentConfig:
    """Which runs to train.

    Attributes:
      base: the baseline TrainConfig (its intervention and seed are replaced).
      seeds: seeds shared by every intervention (>= 1 of them, distinct).
      interventions: subset of INTERVENTIONS; "none" (the baseline) is always run first.
    """

    base: TrainConfig = TrainConfig()
    seeds: tuple[int, ...] = (0, 1, 2)
    interventions: tuple[str, ...] = ("middle_loss", "oversample_middle", "curriculum")

    def __post_init__(self):
        if not self.seeds or len(set(self.seeds)) != len(self.seeds) or any(
                isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in self.seeds):
            raise ValueError(f"seeds must be distinct ints >= 0 (at least one), got {self.seeds!r}")
        for name in self.interventions:
            if name not in INTERVENTIONS:
                raise ValueError(f"interventions must be drawn from {INTERVENTIONS}, got {name!r}")

    @property
    def variants(self) -> tuple[str, ...]:
        """"none" followed by the other interventions, in order, without repeats."""
        return ("none",) + tuple(dict.fromkeys(v for v in self.interventions if v != "none"))


SMOKE_EXPERIMENT = dict(base=TrainConfig(**SMOKE), seeds=(0, 1), interventions=("middle_loss",))


def run_experiment(exp: ExperimentConfig, out_dir: str | pathlib.Path, *, progress: bool = False
                   ) -> tuple[list[dict], dict[tuple[str, int], RunResult]]:
    """Train every (intervention, seed); returns flat snapshot records and the runs."""
    out_dir = pathlib.Path(out_dir)
    records, runs = [], {}
    for variant in exp.variants:
        for seed in exp.seeds:
            cfg = exp.base.replace(intervention=variant, seed=seed)
            res = train(cfg, out_dir / variant / f"seed{seed}", progress=progress)
            runs[(variant, seed)] = res
            for snap in res.snapshots:
                records.append({"intervention": variant, "seed": seed,
                                **{k: v for k, v in snap.items() if k != "profiles"}})
    return records, runs


def profile_rows(runs: dict[tuple[str, int], RunResult]) -> list[dict]:
    """Long table: intervention, seed, step, position, total, value, score."""
    rows = []
    for (variant, seed), res in runs.items():
        for snap in res.snapshots:
            p = snap["profiles"]
            rows += [{"intervention": variant, "seed": seed, "step": snap["step"], "position": j,
                      "total": p["total"][j], "value": p["value"][j], "score": p["score"][j]}
                     for j in range(len(p["total"]))]
    return rows
