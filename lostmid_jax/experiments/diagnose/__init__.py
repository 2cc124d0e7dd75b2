"""Diagnose a trained model: is it lost in the middle, where does its attention go, how much is its architecture's?

    lostmid diagnose --weights DIR_OR_HUB_ID [--mode text|tokens] [--passages 5] [--lengths 1024,4096] ...
    lostmid diagnose --smoke          # a tiny random Llama with a word-level tokenizer, written here, offline

For a checkpoint any family of :func:`lostmid_jax.nn.load_hf` reads (its
tokenizer from the same directory for the text probe):

1. the position-controlled retrieval test (:mod:`lostmid_jax.probes`): E
   examples of k passages, the fact in passage p = 1..k, every other token the
   same (paired design), prompts of exactly T tokens, one test per T of ``lengths``; accuracy (multiple
   choice), greedy exact match and log P(answer) per passage with 95%
   intervals, the paired middle-vs-ends gap with its interval and a verdict;
2. attention received per key position for every layer (raw column mean and
   the ratio to uniform attention over the mask,
   :func:`lostmid_jax.analysis.attention_received`) on the prompts of the
   first length with the fact in the middle passage, and the last layer's
   heat map of |S_i| A_ij;
3. the valley power law beta |pos - T/2|^(-alpha) of the attention and
   influence profiles with a bootstrap CI on alpha and the rule for when it
   does not describe them (:mod:`lostmid_jax.stats.valley`);
4. the architecture's own share: the influence profiles ||d y_T / d x_j||_F
   of the trained model and of Step-0 inits of the same architecture on the
   same prompts, the theory row of its prior (``analysis.prior_for``), and

       birth ratio = V(Step-0 mean profile) / V(trained mean profile),
       V = ln(mean p over the end bands / mean p over the central band)

   (:func:`lostmid_jax.stats.valley.depth_ratio`; 95% CI by a paired
   bootstrap over prompts): 1 means the architecture had the whole valley at
   birth, below 1 that training deepened it, above 1 that training
   flattened it. The same ratio for the theory prior is reported beside it.

Writes accuracy.csv, examples.csv, gaps.csv, attention.csv, heatmap.csv,
profiles.csv, valley.csv, birth.csv, table.txt, verdict.txt and the figures
fig1_accuracy, fig2_attention, fig3_heatmap, fig4_influence (drawn from the
CSVs alone). Config checks refuse bad input before any model is loaded.
"""

from __future__ import annotations

import dataclasses

from .columns import COLUMNS
from .config import RANDOM_TINY, SMOKE, SMOKE_HELP, Config

NAME = "diagnose"
VERDICT_TITLE = "is the model lost in the middle, and how much of it did its architecture have at birth (95% CIs)"
GRIDS = {"heatmap": ("query_bin", "key_bin")}
"""Tables of square-grid cells, checked cell by cell when a run is read back (lostmid_jax.runs.tables.check_grid)."""
FILES = {"checkpoint": f"the tiny random Llama and its word-level tokenizer (weights {RANDOM_TINY})"}


@dataclasses.dataclass(frozen=True)
class Result:
    """What :func:`run` returns.

    Attributes:
      config: the run's Config.
      model_config: the checkpoint's DecoderConfig.
      checkpoint: the directory the weights were read from.
      lengths: the prompt lengths T of the position tests.
      measured: the measurements (:func:`.measure.measure`).
      analysis: valley fits, depths and birth ratios (:func:`.claims.analyse`).
    """

    config: Config
    model_config: object
    checkpoint: str
    lengths: tuple
    measured: dict
    analysis: dict


def run(cfg: Config, run_dir=None, *, progress: bool = True, mesh=None) -> Result:
    """Load the checkpoint, build the probe, measure and analyse (``mesh`` unused)."""
    from . import claims, measure

    model_cfg, model, path, tok = measure.load(cfg, run_dir)
    probes = measure.probe_sets(cfg, model_cfg, tok)
    measured = measure.measure(cfg, model, probes, progress=progress)
    return Result(cfg, model_cfg, str(path), tuple(probes), measured, claims.analyse(cfg, measured))


def records(result: Result) -> dict[str, list[dict]]:
    from .claims import records as _records

    return _records(result)


def summary(result: Result) -> str:
    from .claims import table

    return table(result)


def verdict(result: Result) -> list[str]:
    from .claims import verdict_lines

    return verdict_lines(result)


def figures(tables: dict, cfg: Config) -> dict:
    """{fig1_accuracy, fig2_attention, fig3_heatmap, fig4_influence: Figure} from the run's tables."""
    import numpy as np

    from ...plots import diagnose as plots

    heat = tables["heatmap"]
    bins = int(heat["query_bin"].max()) + 1
    grid = np.full((bins, bins), np.nan)
    grid[heat["query_bin"].to_numpy(int), heat["key_bin"].to_numpy(int)] = heat["ratio"].to_numpy(float)
    last = int(tables["attention"]["layer"].max())
    return {"fig1_accuracy": plots.accuracy_by_passage(tables["accuracy"], title=f"{cfg.title}: accuracy by passage"),
            "fig2_attention": plots.attention_by_layer(tables["attention"], title=f"{cfg.title}: attention received"),
            "fig3_heatmap": plots.attention_heatmap(grid, title=f"{cfg.title}: layer {last} against uniform"),
            "fig4_influence": plots.influence_vs_prior(tables["profiles"],
                                                       title=f"{cfg.title}: influence vs its Step-0 prior")}


def run_info(result: Result) -> dict:
    return {"model": result.model_config, "checkpoint_dir": result.checkpoint, "prior": result.measured["prior"].label,
            "influence_method": result.measured["profiles"]["method"],
            "seconds_by_phase": {k: round(v, 3) for k, v in result.measured["seconds"].items()}}


def resolve(cfg: Config) -> Config:
    """The config with method "auto" replaced by the method that runs (by the checkpoint's width)."""
    return dataclasses.replace(cfg, method=cfg.resolved_method(cfg.model_config().width))


def describe(result: Result) -> str:
    pos = next(iter(result.measured["tests"].values()))["position"]
    return f"{pos.examples} examples x {pos.passages} passages x {len(result.lengths)} lengths"


__all__ = ["COLUMNS", "Config", "FILES", "GRIDS", "NAME", "Result", "SMOKE", "SMOKE_HELP", "VERDICT_TITLE", "describe",
           "figures", "records", "resolve", "run", "run_info", "summary", "verdict"]
