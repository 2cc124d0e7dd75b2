"""Baseline and interventions over seeds: run directories, tables and the verdict.

    records, runs = run_experiment(ExperimentConfig(), out_dir)
    lines = verdict(exp, records)

Each (intervention, seed) trains in out_dir/<intervention>/seed<k>/ (see
loop.py) with identical seeds, data streams and evaluation set.
"""

from __future__ import annotations

import dataclasses
import pathlib

import numpy as np

from .config import INTERVENTIONS, SMOKE, TrainConfig
from .loop import RunResult, train
from .snapshots import middle_bins


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


def _series(records, variant, key, step) -> dict[int, float]:
    return {r["seed"]: r[key] for r in records if r["intervention"] == variant and r["step"] == step and key in r}


def _mean_se(values) -> tuple[float, float]:
    v = np.asarray([x for x in values if np.isfinite(x)], np.float64)
    if v.size == 0:
        return float("nan"), float("nan")
    return float(v.mean()), float(v.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else float("nan")


def _call(mean, se, what_pos, what_neg) -> str:
    if not np.isfinite(se):
        return "undetermined (one seed)"
    if mean > 2 * se:
        return what_pos
    if mean < -2 * se:
        return what_neg
    return "no clear change (|mean| <= 2 SE)"


def verdict(exp: ExperimentConfig, records: list[dict]) -> list[str]:
    """Statements computed from the snapshot numbers, with seeds and mean +- SE across seeds."""
    steps = sorted({r["step"] for r in records})
    first, last = steps[0], steps[-1]
    seeds = list(exp.seeds)
    lines = [f"seeds {seeds}; mean +- SE across seeds; steps {first} -> {last}"]
    v0, v1 = _series(records, "none", "total_valley", first), _series(records, "none", "total_valley", last)
    d = [v1[s] - v0[s] for s in seeds if s in v0 and s in v1]
    m, se = _mean_se(d)
    lines.append(f"valley depth log10(recency/middle), baseline: step {first} {_mean_se(v0.values())[0]:.3f}, "
                 f"step {last} {_mean_se(v1.values())[0]:.3f}; change {m:+.3f} +- {se:.3f} -> "
                 + _call(m, se, "the relative valley DEEPENS", "the relative valley becomes SHALLOWER"))
    for path in ("value", "score"):
        a, b = _series(records, "none", f"{path}_norm", first), _series(records, "none", f"{path}_norm", last)
        lines.append(f"{path} pathway norm, baseline: step {first} {_mean_se(a.values())[0]:.4g} -> "
                     f"step {last} {_mean_se(b.values())[0]:.4g}")
    s0, s1 = _series(records, "none", "total_spike", first), _series(records, "none", "total_spike", last)
    if any(np.isfinite(v) for v in s1.values()):
        m1, se1 = _mean_se(s1.values())
        ds = [s1[s] - s0[s] for s in seeds if s in s0 and s in s1]
        md, sed = _mean_se(ds)
        lines.append(f"chunk-boundary spike log10(n_b / neighbour median), baseline step {last}: {m1:+.3f} +- {se1:.3f} "
                     f"(change from step {first}: {md:+.3f} +- {sed:.3f}) -> "
                     + _call(m1, se1, "spikes at chunk boundaries", "dips at chunk boundaries"))
    if exp.base.task != "lm":
        mid = middle_bins(exp.base.depth_bins)
        base_acc = _series(records, "none", "acc_middle", last)
        bins = [_mean_se(_series(records, "none", f"acc_bin{b}", last).values())[0] for b in range(exp.base.depth_bins)]
        lines.append(f"baseline accuracy by depth bin at step {last}: " + ", ".join(f"{a:.3f}" for a in bins)
                     + f" (middle bins {mid.tolist()}; chance 1/{exp.base.kv_pairs} = {1 / exp.base.kv_pairs:.3f} "
                       f"among context values, 1/{exp.base.vocab} = {1 / exp.base.vocab:.3f} over the vocabulary)")
        for variant in exp.variants[1:]:
            acc = _series(records, variant, "acc_middle", last)
            val = _series(records, variant, "total_valley", last)
            da = [acc[s] - base_acc[s] for s in seeds if s in acc and s in base_acc]
            dv = [val[s] - v1[s] for s in seeds if s in val and s in v1]
            (ma, sa), (mv, sv) = _mean_se(da), _mean_se(dv)
            lines.append(f"{variant} vs baseline (paired by seed), step {last}: middle accuracy {ma:+.3f} +- {sa:.3f} -> "
                         + _call(ma, sa, "raises middle accuracy", "lowers middle accuracy")
                         + f"; valley {mv:+.3f} +- {sv:.3f} -> " + _call(mv, sv, "deeper valley", "shallower valley"))
    return lines
