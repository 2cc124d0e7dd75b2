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

Beside the position curve, two baselines on the same examples: closed-book
(the question alone: does the model know it without the passages?) and
oracle (the fact or gold document alone, then the question), with Wilson
intervals (baselines.csv, the verdict, a band in fig1).

Writes accuracy.csv, baselines.csv, examples.csv, gaps.csv, attention.csv,
heatmap.csv, profiles.csv, valley.csv, birth.csv, examples.jsonl (every
scored prompt decoded, its candidates, scores and greedy output:
:mod:`.examples_log`), table.txt, verdict.txt and the figures fig1_accuracy,
fig2_attention, fig3_heatmap, fig4_influence (drawn from the CSVs alone).
Config checks refuse bad input before any model is loaded.
"""

from __future__ import annotations

import dataclasses

from ...probes.settings import SHORT_FLAGS
from .columns import COLUMNS
from .config import RANDOM_TINY, SMOKE, SMOKE_HELP, Config

NAME = "diagnose"
CLI_ALIASES = SHORT_FLAGS  # --weights, --passages, --lengths, ...: the flags of earlier releases, listed
VERDICT_TITLE = "is the model lost in the middle, and how much of it did its architecture have at birth (95% CIs)"
GRIDS = {"heatmap": ("query_bin", "key_bin")}
"""Tables of square-grid cells, checked cell by cell when a run is read back (lostmid_jax.runs.tables.check_grid)."""
FILES = {"checkpoint": f"the tiny random Llama and its word-level tokenizer (weights {RANDOM_TINY})",
         "examples.jsonl": "every scored prompt: decoded prompt, candidates, gold position, scores, greedy output"}


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


def run(cfg: Config, run_dir=None, *, progress: bool = True, mesh=None, resolved=None) -> Result:
    """Load the checkpoint, build the probe, measure and analyse (``mesh`` unused); write examples.jsonl into
    ``run_dir``; measured["cpu"] holds the run's CPU seconds and the config's estimate of them (probes.cost),
    measured["unknown"] the verdict's line on strings measured as the unknown token (--allow-unknown-tokens),
    or None. ``resolved``: the checkpoint as :func:`resolve` looked it up (None: looked up and checked here)."""
    import time

    from . import claims, examples_log, measure

    if resolved is None:
        resolved = resolve(cfg).inputs
    cpu = time.process_time()
    model_cfg, model, path, tok = measure.load(resolved, run_dir, cfg.checkpoint.dtype)
    probes = measure.probe_sets(cfg, model_cfg, tok)
    answer_ids = next(iter(probes.values())).answers.shape[2]
    measured = measure.measure(cfg, model, probes, progress=progress)
    if run_dir is not None:
        examples_log.write_examples(run_dir, examples_log.example_rows(probes, measured, tok))
    measured["unknown"] = resolved.text.unknown.line(probes.values()) if resolved.text is not None else None
    analysis = claims.analyse(cfg, measured)
    measured["cpu"] = {"seconds": round(time.process_time() - cpu, 3),
                       "estimate": round(cfg.cost(model_cfg, answer_ids).seconds, 3)}
    return Result(cfg, model_cfg, str(path), tuple(probes), measured, analysis)


def records(result: Result) -> dict[str, list[dict]]:
    from .claims import records as _records

    return _records(result)


def summary(result: Result) -> str:
    from .claims import table

    return table(result)


def main_table(tables: dict, verdict=None):
    """(header, rows) of ``lostmid table``: accuracy by position with CIs and the baseline rows."""
    from .claims import main_table as _main_table

    return _main_table(tables, verdict)


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
    return {"fig1_accuracy": plots.accuracy_by_passage(tables["accuracy"], baselines=tables.get("baselines"),
                                                       title=f"{cfg.title}: accuracy by passage"),
            "fig2_attention": plots.attention_by_layer(tables["attention"], title=f"{cfg.title}: attention received"),
            "fig3_heatmap": plots.attention_heatmap(grid, title=f"{cfg.title}: layer {last} against uniform"),
            "fig4_influence": plots.influence_vs_prior(tables["profiles"],
                                                       title=f"{cfg.title}: influence vs its Step-0 prior")}


def page_title(cfg: Config) -> str:
    """The report page's title: the checkpoint, the lengths and the sizes (present.page)."""
    from ...probes.checkpoint import stored_checkpoint_name

    lengths = ", ".join(str(t) for t in cfg.probe.lengths)
    return (f"Diagnosis of {stored_checkpoint_name(cfg.checkpoint.weights)} at T = {lengths}: {cfg.probe.examples} examples x "
            f"{cfg.probe.passages} passages ({cfg.probe.mode} probe)")


def page_table(tables: dict, cfg: Config):
    """The report's results table, one row per length T: multiple-choice accuracy by passage with its 95% Wilson
    interval, the middle - ends gap with its paired interval and the position test's verdict (gaps.csv), and
    the overall accuracy against chance (present.page.PageTable)."""
    from ...present.page import PageTable
    from ...stats.format import fmt_ci
    from .claims import overall_against_chance, starred

    acc, gaps = tables["accuracy"], tables["gaps"]
    k = int(acc["passage"].max())
    rows, starred_any = [], False
    for length, rates in acc.groupby("length", sort=False):
        rates = rates.sort_values("passage")
        cells = [fmt_ci(r.accuracy, r.accuracy_lo, r.accuracy_hi, ".2f", missing="") for r in rates.itertuples()]
        gap = gaps[(gaps["length"] == length) & (gaps["measure"] == "accuracy")].iloc[0]
        overall, lo, hi, reading = overall_against_chance(rates["accuracy"].to_numpy(float),
                                                          int(rates["examples"].iloc[0]), float(rates["chance"].iloc[0]))
        beyond = "extrapolated" in rates and int(rates["extrapolated"].iloc[0]) == 1
        starred_any |= beyond
        rows.append((starred(length, beyond), *cells, fmt_ci(gap["mean"], gap["lo"], gap["hi"], "+.2f", missing=""),
                     str(gap["verdict"]), f"{overall:.2f} [{lo:.2f}, {hi:.2f}]", reading))
    chance = float(acc["chance"].iloc[0])
    return PageTable(("T", *(f"passage {p}" for p in range(1, k + 1)), "middle - ends [95% CI]", "verdict",
                      "overall [95% CI]", f"against chance {chance:.2f}"), tuple(rows),
                     note="Multiple-choice accuracy (the right answer ranked first among the candidates; ties count "
                          "as wrong) by the passage holding the fact, 95% Wilson intervals; middle - ends: the paired "
                          "gap with its 95% bootstrap interval and the position test's verdict (middle worse: a "
                          "valley). From accuracy.csv and gaps.csv; exact match and log P in the tables below."
                          + (" T*: measured beyond the checkpoint's trained context (--allow-extrapolation)."
                             if starred_any else ""),
                     outcomes=(k + 2, k + 4))


def run_info(result: Result) -> dict:
    return {"model": result.model_config, "checkpoint_dir": result.checkpoint, "prior": result.measured["prior"].label,
            "influence_method": result.measured["profiles"]["method"],
            "seconds_by_phase": {k: round(v, 3) for k, v in result.measured["seconds"].items()},
            "cpu_seconds": result.measured["cpu"]["seconds"], "estimated_cpu_seconds": result.measured["cpu"]["estimate"]}


def resolve(cfg: Config):
    """The checkpoint looked up once and every refusal that needs it (:meth:`Config.check_checkpoint`), before
    any model loads: runner.Resolved(the config with method "auto" replaced by the method that runs, by the
    checkpoint's width; the probes.checkpoint.ResolvedCheckpoint every later step reads)."""
    from ...probes.checkpoint import look_up_checkpoint
    from ..runner import Resolved

    checkpoint = look_up_checkpoint(cfg.checkpoint, cfg.probe)
    cfg.check_checkpoint(checkpoint)
    return Resolved(dataclasses.replace(cfg, method=cfg.resolved_method(checkpoint.model_config.width)), checkpoint)


def describe(result: Result) -> str:
    pos = next(iter(result.measured["tests"].values()))["position"]
    return f"{pos.examples} examples x {pos.passages} passages x {len(result.lengths)} lengths"


__all__ = ["COLUMNS", "Config", "FILES", "GRIDS", "NAME", "Result", "SMOKE", "SMOKE_HELP", "VERDICT_TITLE",
           "describe", "figures", "main_table", "records", "resolve", "run", "run_info", "summary", "verdict"]
