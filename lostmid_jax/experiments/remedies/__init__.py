"""`lostmid remedies`: inference-time remedies on the same trained model, paired against it, with what Step 0 predicts.

Shapes: E examples, k passages (p = 1..k), T prompt ids, L = T key positions (j = 1..L, x = j/L).

For a checkpoint (any family ``nn.load_hf`` reads; its own tokenizer in text
mode, or the token-level probe), builds the position-controlled probe
(:mod:`lostmid_jax.probes.documents`: the fact in passage p, everything else
identical across p), measures the unmodified model, then each remedy of
:mod:`lostmid_jax.probes.remedies` (a RoPE base or scaling change, markers,
the RAG reordering, sinks with a window) on the same examples:
accuracy per passage with Wilson intervals, attention received, the valley
fit of the attention profile, the exact influence profile on a few prompts,
and the Step-0 theory's prediction; each remedy's paired differences against
the unmodified model with 95% bootstrap intervals and a verdict
(:mod:`lostmid_jax.probes.remedy_effects`). A remedy that provably changes
nothing at the probe's lengths (``sinks:4:256`` at T = 256,
``rope_scaling:dynamic:2`` within the original context;
:func:`lostmid_jax.probes.remedies.noop_reason`) is not measured and is
reported as "no-op at this length".

Writes accuracy.csv, measurements.csv, effects.csv, received.csv (and
influence.csv with --influence-examples), table.txt, verdict.txt and the
figures (:mod:`lostmid_jax.plots.remedies`). ``--smoke`` without
``--weights`` writes a tiny random Llama with a word-level tokenizer into
<run_dir>/checkpoint and runs offline.
"""

from __future__ import annotations

import dataclasses
import time

from ...probes.settings import SHORT_FLAGS
from .claims import NOT_APPLICABLE, theory_text
from .columns import COLUMNS
from .config import RANDOM_TINY, SMOKE, SMOKE_HELP, Config

NAME = "remedies"
CLI_ALIASES = SHORT_FLAGS  # --weights, --passages, --lengths, ...: the flags of earlier releases, listed
CLI_DEPRECATED = {"length": "probe.lengths"}  # the flag is spelled as diagnose's; --length still reads, with a hint
VERDICT_TITLE = "inference-time remedies vs the unmodified model (paired over examples, 95% CIs)"
FILES = {"checkpoint": "the tiny random Llama and its word-level tokenizer measured with --smoke"}


@dataclasses.dataclass(frozen=True)
class Result:
    """What :func:`run` returns.

    Attributes:
      config: the run's Config.
      model_config: the checkpoint's DecoderConfig.
      base: the unmodified model's Measurement (probes.remedy_effects).
      remedies: {spec: (Remedy, Measurement or None, Effect or None, skipped reason or None)}.
      valleys: {'none' | spec: stats.valley.ValleyFit or None (the fit range too short)}.
      checkpoint: the directory the weights were read from.
      extrapolated: {'none' | spec: True when its forward reads beyond the checkpoint's trained context}.
      unknown: the verdict's line on strings measured as the unknown token (--allow-unknown-tokens), or None.
      cpu: {"seconds": CPU seconds of the run, "estimate": what the config's cost estimated before it}.
    """

    config: Config
    model_config: object
    base: object
    remedies: dict
    valleys: dict
    checkpoint: str
    extrapolated: dict = dataclasses.field(default_factory=dict)
    unknown: str | None = None
    cpu: dict = dataclasses.field(default_factory=dict)


def resolve(cfg: Config):
    """The checkpoint looked up once and every refusal that needs it (:meth:`Config.check_checkpoint`), before
    any model loads: runner.Resolved(cfg, the probes.checkpoint.ResolvedCheckpoint every later step reads)."""
    from ...probes.checkpoint import look_up_checkpoint
    from ..runner import Resolved

    checkpoint = look_up_checkpoint(cfg.checkpoint, cfg.probe, marker=cfg.markers)
    cfg.check_checkpoint(checkpoint)
    return Resolved(cfg, checkpoint)


def run(cfg: Config, run_dir=None, *, progress: bool = True, mesh=None, resolved=None) -> Result:
    """Measure the unmodified model and every remedy on the same probe set (``mesh`` unused); ``resolved``: the
    checkpoint as :func:`resolve` looked it up (None: looked up and checked here)."""
    from ...probes.checkpoint import build_probes, load_checkpoint
    from . import measure

    if resolved is None:
        resolved = resolve(cfg).inputs
    cpu = time.process_time()
    model_cfg, model, path, tok = load_checkpoint(resolved, run_dir, dtype=cfg.checkpoint.dtype)
    probes = build_probes(cfg.probe, tok, model_cfg.vocab_size, cfg.length, low=cfg.low)
    ids = cfg.marker_ids(tok) if any(r.startswith("markers") for r in cfg.remedies) else None
    estimate = cfg.cost(model_cfg, probes.answers.shape[2], len(ids or [1])).seconds
    base, out, valleys, beyond, scored = measure.measure(cfg, model_cfg, model, probes, ids, progress=progress)
    unknown = resolved.text.unknown.line(scored) if resolved.text is not None else None
    return Result(cfg, model_cfg, base, out, valleys, str(path), beyond, unknown,
                  {"seconds": round(time.process_time() - cpu, 3), "estimate": round(estimate, 3)})


def records(result: Result) -> dict[str, list[dict]]:
    """accuracy.csv, measurements.csv, effects.csv, received.csv (and influence.csv when measured)."""
    from .claims import records as _records

    return _records(result)


def table(result: Result) -> str:
    from .claims import table as _table

    return _table(result)


def summary(result: Result) -> str:
    return table(result)


def verdict(result: Result) -> list[str]:
    from .claims import verdict_lines

    return verdict_lines(result)


def main_table(tables: dict, verdict=None) -> tuple[list[str], list[list[str]]]:
    """``lostmid table``: the report page's results table (:func:`page_table`) as rows of text cells."""
    from .claims import main_table as _main_table

    return _main_table(tables, verdict)


def page_table(tables: dict, cfg: Config):
    """The report's results table from effects.csv (:func:`.claims.page_table`)."""
    from .claims import page_table as _page_table

    return _page_table(tables, cfg)


def figures(tables: dict, cfg: Config) -> dict:
    """{stem: Figure} from the run's tables (:mod:`lostmid_jax.plots.remedies`)."""
    from ...plots import remedies as plots

    out = {"fig1_accuracy": plots.accuracy_by_remedy(tables["accuracy"], title=f"{cfg.title}: accuracy by passage"),
           "fig3_received": plots.received_by_remedy(tables["received"])}
    if "effects" in tables and len(tables["effects"]):
        out["fig2_effects"] = plots.effects(tables["effects"])
    return dict(sorted(out.items()))


def page_title(cfg: Config) -> str:
    """The report page's title: the checkpoint, the length and the sizes (present.page)."""
    from ...probes.checkpoint import stored_checkpoint_name

    return (f"Inference-time remedies on {stored_checkpoint_name(cfg.checkpoint.weights)} at T = {cfg.length}: "
            f"{len(cfg.remedies)} remedies, {cfg.probe.examples} examples x {cfg.probe.passages} passages "
            f"({cfg.probe.mode} probe)")


def run_info(result: Result) -> dict:
    return {"checkpoint": result.checkpoint, "cpu_seconds": result.cpu.get("seconds"),
            "estimated_cpu_seconds": result.cpu.get("estimate")}


def describe(result: Result) -> str:
    return f"{len(result.remedies)} remedies x {result.base.result.examples} examples"


__all__ = ["COLUMNS", "Config", "NAME", "NOT_APPLICABLE", "Result", "SMOKE", "SMOKE_HELP", "describe", "figures",
           "main_table", "page_table", "page_title", "records", "resolve", "run", "summary", "table", "theory_text",
           "verdict"]
