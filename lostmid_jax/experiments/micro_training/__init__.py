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
"""

from __future__ import annotations

import dataclasses
import logging
import pathlib

from ...train.config import INTERVENTIONS, SMOKE as TRAIN_SMOKE, TrainConfig, intervention_dirs, intervention_name
from ...stats.format import fmt_ci
from ...validation import check_choice, check_int
from ...runs.config import tuples_from_lists
from .legacy_flags import LEGACY_FLAGS

NAME = "micro_training"
VERDICT_TITLE = "micro-training: the valley, the pathways and retrieval, mean [95% CI] over seeds"
SMOKE_HELP = "one layer of width 16, 5 steps, 2 seeds, one intervention"
RESUMABLE = True
USES_DEVICES = True
CLI_ALIASES = {"task": "base.task", "steps": "base.steps", "depth": "base.model.depth", "width": "base.model.width",
               "heads": "base.model.heads", "lr": "base.lr", "snapshots": "base.snapshot_steps"}
CLI_LEGACY = LEGACY_FLAGS  # the leaf names of earlier releases (--kind, --init, ...): accepted, not listed
CLI_HIDDEN = frozenset({"base.seed", "base.intervention"})
_LOG = logging.getLogger(__name__)
FILES = {variant: f"the '{variant}' training runs: seed<k>/ with train_config.json, metrics.jsonl, "
                  "snapshots.jsonl and ckpt/ (lostmid_jax.train.load_trained reads them back)"
         for variant in INTERVENTIONS}

_KEYS = {"intervention": ("training variant: none (baseline), middle_weighted_loss, oversample_middle or curriculum; "
                         "middle_loss in runs written before the rename", ""),
         "seed": ("seed of the model init and the data stream", ""),
         "step": ("optimizer steps taken when the snapshot was measured (0: the initialization)", "steps")}
_PATHWAYS = {"total": "the full Jacobian", "value": "the value pathway (attention probabilities frozen)",
             "score": "the score pathway (total minus value)"}
COLUMNS = {
    "snapshots.csv": {
        **_KEYS,
        **{k: v for path, what in _PATHWAYS.items() for k, v in {
            f"{path}_norm": (f"pathway norm sqrt(sum_j n_j^2) of {what}", ""),
            f"{path}_valley": (f"valley depth log10(n_L / mean middle n_j) of {what} (train/metrics.py)", "log10"),
            f"{path}_spike": (f"mean log10(n_b / median of the neighbours) at interior document starts b, {what}; "
                              "empty without interior boundaries", "log10"),
            f"{path}_doc_u": (f"document-local U log10(sqrt(start * end edge) / middle), mean over documents, "
                              f"{what}; empty when no document is long enough", "log10"),
        }.items()},
        "acc_mean": ("retrieval accuracy, mean over needle bins; empty for task lm", ""),
        "acc_middle": ("retrieval accuracy of the central needle bin(s); empty for task lm", ""),
    },
    "profiles.csv": {
        **_KEYS,
        "j": ("input position, 1-based (1..L; L is the output token's own position)", ""),
        "x": ("normalized position j/L", ""),
        **{path: (f"influence n_j = ||d y_L / d x_j||_F through {what}", "") for path, what in _PATHWAYS.items()},
    },
    "strength.csv": {**_KEYS, "layer": ("layer l, 1-based", ""),
                     "a": ("measured attention strength a_l on the profile input", "")},
    "accuracy.csv": {**_KEYS, "bin": ("needle bin b, 1-based (by the needle's pair index in the context)", ""),
                     "x": ("bin centre (b - 1/2) / bins, as a fraction of the context's pairs", ""),
                     "accuracy": ("fraction of exact argmax answers in the bin", "")},
    "documents.csv": {**_KEYS, "document": ("document c, 1-based, in the profile input", ""),
                      "doc_u": ("document-local U log10(sqrt(start * end edge) / middle) of the total "
                                "profile; empty when the document is too short", "log10")},
}


@dataclasses.dataclass(frozen=True, kw_only=True)
class Config:
    """Which runs to train.

    Attributes:
      base: the baseline TrainConfig (its intervention and seed are replaced per run).
      seeds: seeds shared by every intervention (at least one; distinct ints >= 0).
      interventions: drawn from middle_weighted_loss, oversample_middle, curriculum ('' for none); the
        baseline "none" always runs first (the old name middle_loss is read as middle_weighted_loss).
    """

    base: TrainConfig = TrainConfig()
    seeds: tuple[int, ...] = (0, 1, 2)
    interventions: tuple[str, ...] = ("middle_weighted_loss", "oversample_middle", "curriculum")

    def __post_init__(self):
        tuples_from_lists(self)
        object.__setattr__(self, "interventions", tuple(intervention_name(v, "interventions")
                                                        for v in self.interventions))
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


SMOKE = {**{f"base.{k}": v for k, v in TRAIN_SMOKE.items()}, "seeds": (0, 1), "interventions": ("middle_weighted_loss",)}


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
    _LOG.info(f"micro_training: {len(cfg.variants)} variants x {len(cfg.seeds)} seeds, attention {attn_impl}")
    with using_mesh(mesh):
        for variant in cfg.variants:
            for seed in cfg.seeds:
                first = not runs  # its set-up phases compile; the later runs reuse those programs
                res = train(base.replace(intervention=variant, seed=seed), _variant_dir(out_dir, variant) / f"seed{seed}",
                            progress=progress and is_process0(), log=_LOG.info if first else None)
                runs[(variant, seed)] = res
                for snap in res.snapshots:
                    records.append({"intervention": variant, "seed": seed,
                                    **{k: v for k, v in snap.items() if k != "profiles"}})
    return Result(cfg, records, runs, attn_impl)


def _variant_dir(out_dir: pathlib.Path, variant: str) -> pathlib.Path:
    """<out_dir>/<variant>, or the directory of its old name where a run written before the rename has one."""
    return next((out_dir / d for d in intervention_dirs(variant) if (out_dir / d).is_dir()), out_dir / variant)


def profile_rows(runs: dict) -> list[dict]:
    """Rows of profiles.csv: intervention, seed, step, j (1-based), x = j/L, total, value, score."""
    rows = []
    for (variant, seed), res in runs.items():
        for snap in res.snapshots:
            p = snap["profiles"]
            length = len(p["total"])
            rows += [{"intervention": variant, "seed": seed, "step": snap["step"], "j": j + 1, "x": (j + 1) / length,
                      "total": p["total"][j], "value": p["value"][j], "score": p["score"][j]}
                     for j in range(length)]
    return rows


def snapshot_rows(records: list[dict]) -> list[dict]:
    """Rows of snapshots.csv: the scalar snapshot metrics (COLUMNS), None where a task has none (runs.write_csv
    writes None and NaN as an empty field)."""
    return [{k: r.get(k) for k in COLUMNS["snapshots.csv"]} for r in records]


def _indexed(records: list[dict], prefix: str, column: str, value: str, extra=None) -> list[dict]:
    """Long rows (intervention, seed, step, <column> = 1-based index, [extra], <value>) of the record
    keys ``<prefix><k>`` (k 0-based)."""
    rows = []
    for r in records:
        keys = sorted((k for k in r if k.startswith(prefix) and k[len(prefix):].isdigit()),
                      key=lambda k: int(k[len(prefix):]))
        for k in keys:
            i = int(k[len(prefix):]) + 1
            rows.append({"intervention": r["intervention"], "seed": r["seed"], "step": r["step"], column: i,
                         **(extra(i) if extra else {}), value: r[k]})
    return rows


def records(result: Result) -> dict[str, list[dict]]:
    """snapshots.csv, profiles.csv, strength.csv, and accuracy.csv (tasks with retrieval) and documents.csv
    (tasks with documents)."""
    base, recs = result.config.base, result.records
    out = {"snapshots.csv": snapshot_rows(recs), "profiles.csv": profile_rows(result.runs),
           "strength.csv": _indexed(recs, "strength_", "layer", "a")}
    if base.task != "lm":
        bins = base.needle_bins
        out["accuracy.csv"] = _indexed(recs, "acc_bin", "bin", "accuracy", lambda b: {"x": (b - 0.5) / bins})
    if base.task in ("lm", "mixed"):
        out["documents.csv"] = _indexed(recs, "total_doc_u_c", "document", "doc_u")
    return {name: rows for name, rows in out.items() if rows}


def summary(result: Result) -> str:
    return ""


def verdict(result: Result) -> list[str]:
    from .claims import verdict as claims_verdict

    return claims_verdict(result.config, result.records)


def figures(tables: dict, cfg: Config) -> dict:
    """{stem: Figure} from the run's tables (:mod:`lostmid_jax.plots.training`)."""
    from ...plots.training import all_figures
    from ...train import tasks

    tables = {stem: _renamed(table) for stem, table in tables.items()}
    return all_figures(tables, cfg, boundaries=tasks.boundaries(cfg.base), chance=tasks.chance_accuracy(cfg.base))


def _renamed(table):
    """A table whose intervention column uses the current names (runs written before the rename)."""
    from ...train.config import RENAMED_INTERVENTIONS

    if "intervention" not in getattr(table, "columns", ()):
        return table
    return table.assign(intervention=table["intervention"].replace(RENAMED_INTERVENTIONS))


def resolve(cfg: Config) -> Config:
    """The config with attn_impl "auto" replaced by the implementation that runs (this may build
    the fused kernel: :func:`lostmid_jax.train.resolve_attn_impl`)."""
    from ...train import resolve_attn_impl

    return dataclasses.replace(cfg, base=cfg.base.replace(attn_impl=resolve_attn_impl(cfg.base)))


def page_title(cfg: Config) -> str:
    """The report page's title: the model, the task and its length, the steps, seeds and variants (present.page)."""
    base, model = cfg.base, cfg.base.model
    layers = f"{model.depth}-layer"
    length = (f"L = {base.lm_length}" if base.task in ("lm", "mixed") else f"{base.kv_pairs} key-value pairs"
              if base.task == "retrieval" else f"{base.kv_pairs} passages of {base.passage_length} tokens")
    seeds = ", ".join(str(s) for s in cfg.seeds)
    return (f"Micro-training of a {layers}, width-{model.width} decoder ({model.position}, {model.mask} mask) on "
            f"the {base.task} task, {length}: {base.steps} steps, seeds {seeds}, {' vs '.join(cfg.variants)}")


def page_table(tables: dict, cfg: Config):
    """The report's results table from snapshots.csv: the baseline at the first snapshot and every variant at
    the last, the valley depth and (a retrieval task) the accuracy, mean [95% CI] over seeds, the accuracy
    against chance (present.page.PageTable)."""
    from ...present.page import PageTable
    from ...stats.intervals import mean_halfwidth
    from .claims import accuracy_reading

    snap = _renamed(tables["snapshots"])
    steps = sorted(set(snap["step"].astype(int)))
    retrieval = cfg.base.task != "lm" and "acc_mean" in snap.columns
    rows = []
    for variant, step in [("none", steps[0])] + [(v, steps[-1]) for v in cfg.variants]:
        at = snap[(snap["intervention"] == variant) & (snap["step"] == step)]
        cells = [variant, str(step)]
        for column in ("total_valley",) + (("acc_mean",) if retrieval else ()):
            m, half = mean_halfwidth(at[column].dropna().to_numpy(float))
            cells.append(fmt_ci(m, m - half, m + half, "+.3f" if column == "total_valley" else ".3f", missing="",
                                no_ci="[no CI]"))
        if retrieval:
            cells.append(accuracy_reading(cfg.base, m, half, step))
        rows.append(tuple(cells))
    header = ("variant", "step", "valley log10(recency/middle) [95% CI]") + (
        ("accuracy [95% CI]", "against chance") if retrieval else ())
    return PageTable(header, tuple(rows), outcomes=(4,) if retrieval else (),
                     note="Mean over seeds with its 95% t interval; the valley depth of the full Jacobian's "
                          "influence profile, the retrieval accuracy as the mean over needle bins. From "
                          "snapshots.csv; the per-bin accuracies, pathways and documents in the verdict and tables.")


def run_info(result: Result) -> dict:
    return {"attn_impl_used": result.attn_impl}


def describe(result: Result) -> str:
    return f"{len(result.runs)} runs x {result.config.base.steps} steps"
