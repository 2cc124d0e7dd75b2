"""Step 0: Jacobian influence profiles of freshly initialized decoders vs the exact theory.

Reproduces the paper's central Step-0 measurement (Chowdhury, arXiv:2603.10123):
||d y_L / d x_j||_F for the toy, GPT-2 small/medium and Qwen2-0.5B replicas,
position encodings on and off, a RoPE base sweep and several seeds, compared
with theory rows from the measured a_l and from a fitted constant a.

    config.py    what to run (presets, variants, seeds, estimator)
    measure.py   one unit (preset, variant, seed) -> arrays, saved as units/*.npz (resumable)
    tables.py    per (preset, variant) summaries, 95% CIs and the CSV rows
    memory_plan.py  each preset's peak memory, planned (and refused over --limits max_memory_gb) before the run
    claims.py    the table and the verdict on the paper's claims (docs/theory.md §5)
    columns.py   what every CSV column means (COLUMNS)

The default run covers "toy-deep" (depth 12, exact, 8 seeds) and gpt2-small
(4 seeds); ``--full`` adds qwen2-0.5b (it prints the expected time first);
any preset of nn.PRESETS can be chosen with --preset. Every comparison has
its 95% CI (lostmid_jax.analysis.agreement).

Writes config.json, units/*.npz, profiles.csv, metrics.csv, agreement.csv,
nulls.csv, alphas.csv, attention.csv, table.txt, verdict.txt and the figures
(overlay_<preset>, heatmap_<preset>, drawn from the CSVs alone); the same run
directory resumes. Positions j and layers are 1-based, x = j/L.

Each model is compared with its own Step-0 prior (config.json "priors"):
``analysis.prior_for`` of its config by default; with ``--content-prior`` the
Content prior measured from its seed-0 model (:func:`lostmid_jax.analysis.measured_prior.measured_content_prior`;
the scores in content_scores.csv, the prior named in verdict.txt).
"""

from __future__ import annotations

import dataclasses
import logging
import pathlib

from .columns import COLUMNS
from .config import (DEFAULT_PLANS, DEFAULT_PRESETS, FULL_PRESETS, FULL_SECONDS_PER_UNIT, SMOKE, Config,
                     INPUTS, METHODS, PresetPlan, default_plan, model_config, variant_overrides)
from ...nn.presets import PRESETS as _PRESETS
from .. import influence_settings, preset_settings

_LOG = logging.getLogger(__name__)

NAME = "step0"
VERDICT_TITLE = "the paper's Step-0 claims, native variant of each preset"
SMOKE_HELP = "toy preset, L=32, 2 seeds, 4 probes"
FILES = {"units": "one .npz file per (preset, variant, seed): the measured arrays (a rerun resumes from them); "
                  "timings.json: each unit's measurement time"}
RESUMABLE = True
USES_DEVICES = True
CLI_ALIASES = {**preset_settings.ALIASES, **influence_settings.ALIASES}  # --preset, --length, ...
CLI_LEGACY = preset_settings.LEGACY_FLAGS  # --presets, --param-dtype: the spellings before the config groups
CLI_HIDDEN = frozenset({"smoke"})  # set by --smoke (SMOKE), not a flag of its own
CLI_CHOICES = {"models.presets": tuple(_PRESETS), "influence.method": METHODS,
               "influence.input": INPUTS}  # listed in --help


@dataclasses.dataclass(frozen=True)
class Result:
    """What :func:`run` returns.

    Attributes:
      config: the run's Config.
      units: {(preset, variant): [arrays of each seed's unit]}.
      summaries: {(preset, variant): summary dict} (:func:`.tables.summarize`).
      priors: {(preset, variant): the model's theory prior} (:func:`lostmid_jax.analysis.prior_for`).
      peak_rss_gb: the process's peak resident memory after the run, GB = 1e9 bytes
        (:func:`lostmid_jax.resources.peak_resident_bytes`: its own, not the launching process's).
    """

    config: Config
    units: dict
    summaries: dict
    priors: dict
    peak_rss_gb: float


def resolve(cfg: Config) -> Config:
    """``cfg`` unchanged, once its memory plan fits (before the run directory is claimed): a preset whose units'
    peak is over ``--limits max_memory_gb`` is refused in one line (:func:`.memory_plan.check`)."""
    from .memory_plan import check

    check(cfg)
    return cfg


def run(cfg: Config, run_dir, *, progress: bool = True, mesh=None) -> Result:
    """Measure (or resume) every unit, then summarize (:mod:`.measure`, :mod:`.tables`); float64
    (``param_dtype``) is switched on for this call only."""
    import contextlib

    import jax

    precision = jax.enable_x64(True) if cfg.models.param_dtype == "float64" else contextlib.nullcontext()
    with precision:
        return _run(cfg, run_dir, progress=progress, mesh=mesh)


def _run(cfg: Config, run_dir, *, progress: bool, mesh) -> Result:
    from ...analysis import prior_for
    from ...analysis.measured_prior import measured_content_prior
    from ...resources import peak_resident_bytes
    from ..runner import writes_files
    from . import measure, tables

    if cfg.full:
        _LOG.info(expected_time(cfg))
    units = measure.run_all(cfg, pathlib.Path(run_dir), progress=progress and writes_files(), mesh=mesh)
    plans = {p.preset: p for p in cfg.plans()}
    if cfg.content_prior:
        if writes_files():
            _LOG.info("step0: measuring each seed-0 model's content scores (--content-prior)")
        priors = {(name, variant): measured_content_prior(measure.unit_inputs(cfg, plans[name], variant, 0)[0],
                                                          plans[name].length) for name, variant in units}
    else:
        priors = {(name, variant): prior_for(model_config(name, variant), plans[name].length)
                  for name, variant in units}
    if writes_files():
        _LOG.info(f"step0: summaries and 95% CIs ({cfg.n_boot} bootstrap replicates)")
    summaries = tables.summarize(units, cfg.band, priors, n_boot=cfg.n_boot) if writes_files() else {}
    peak_gb = peak_resident_bytes() / 1e9
    return Result(cfg, units, summaries, priors, peak_gb)


def expected_time(cfg: Config) -> str:
    """What --full adds, and how long it is expected to take on 2 CPU cores."""
    plans = {p.preset: p for p in cfg.plans()}
    parts, total = [], 0.0
    for name in FULL_PRESETS:
        plan = plans[name]
        units = len(plan.units())
        seconds = units * FULL_SECONDS_PER_UNIT[name] * plan.length / 2048 * max(plan.probes, 1) / 8
        total += seconds
        parts.append(f"{name}: {units} units (L={plan.length}, {plan.probes} probes) ~{seconds / 60:.0f} min")
    return (f"--full: {'; '.join(parts)}; expect about {total / 60:.0f} min on 2 CPU cores beyond the default run "
            f"(peak memory ~5 GB; measured with the blocked attention backward)")


def records(result: Result) -> dict[str, list[dict]]:
    """profiles.csv, metrics.csv, agreement.csv, nulls.csv, alphas.csv, attention.csv, content_scores.csv, and
    timings.csv (measurement times, apart from the results) (:mod:`.tables`)."""
    from . import tables

    plans = {p.preset: p for p in result.config.plans()}
    out = {"profiles.csv": tables.profile_records(result.summaries),
           "metrics.csv": tables.metric_records(result.summaries, plans),
           "agreement.csv": tables.agreement_records(result.summaries),
           "nulls.csv": tables.null_records(result.summaries),
           "alphas.csv": tables.alpha_records(result.summaries),
           "attention.csv": tables.attention_records(result.summaries, result.config.heat_length),
           "content_scores.csv": [row for (name, variant), prior in result.priors.items()
                                  for row in tables.content_records(prior, plans[name].length, preset=name,
                                                                    variant=variant)],
           "timings.csv": tables.timing_records(result.summaries)}
    return {name: rows for name, rows in out.items() if rows}


def summary(result: Result) -> str:
    from .claims import table

    return table(result.summaries)


def verdict(result: Result) -> list[str]:
    from .claims import DETAILS, verdict as claims_verdict

    lines = claims_verdict(result.summaries, smoke=result.config.smoke)
    if result.config.content_prior:
        at = lines.index(DETAILS)
        lines[at:at] = (["theory prior of each model (--content-prior: the self bonus and off-diagonal score per "
                         "layer and head measured from its seed-0 model, content_scores.csv):"] +
                        [f"  {name}/{variant}: {prior.label}" for (name, variant), prior in result.priors.items()])
    return lines


def figures(tables: dict, cfg: Config) -> dict:
    """overlay_<preset> and heatmap_<preset> for every preset, drawn from the saved CSVs alone
    (``tables``: CSV stem -> DataFrame, as lostmid_jax.runs.load_run gives them)."""
    from ...plots.step0 import figures as draw

    return draw(tables, cfg)


def main_table(tables: dict, verdict=None) -> tuple[list[str], list[list[str]]]:
    """``lostmid table``: the claims table (one row per judged claim of verdict.txt, present.verdict_table)."""
    from ...present.verdict_table import claim_rows

    rows = claim_rows(verdict)
    if not rows:
        raise ValueError("run_dir: this step0 run's verdict.txt judges no claim (absent, or a run too small to "
                         "test the paper's claims); `lostmid table` prints its claims table")
    return (["preset", "claim", "measured [95% CI]", "outcome", "paper"],
            [[r.group, r.claim, r.measured, r.outcome, r.paper] for r in rows])


def profile(result: Result, phases: dict) -> str:
    """The ``--profile`` table: per (preset, variant) its units' wall seconds split into compile, device and
    host (timings.csv), the host time of its summary, the units' own host share host / wall ("unit host") and
    the host share with the summary (host + summary) / (wall + summary)."""
    from .tables import timing_records

    head = ("preset/variant", "seeds", "wall s", "compile s", "device s", "host s", "summary s", "compiles",
            "unit host", "host share")
    share = lambda part, whole: f"{100 * part / whole:.0f}%" if whole > 0 else "-"  # noqa: E731
    rows = []
    for r in timing_records(result.summaries):
        rows.append((f"{r['preset']}/{r['variant']}", f"{r['seeds']}", f"{r['seconds']:.2f}",
                     f"{r['compile_seconds']:.2f}", f"{r['device_seconds']:.2f}", f"{r['host_seconds']:.2f}",
                     f"{r['summary_seconds']:.2f}", f"{r['compiles']:.0f}", share(r["host_seconds"], r["seconds"]),
                     share(r["host_seconds"] + r["summary_seconds"], r["seconds"] + r["summary_seconds"])))
    widths = [max(len(row[i]) for row in (head, *rows)) for i in range(len(head))]
    lines = ["time per (preset, variant), summed over its seeds (timings.csv):"]
    lines += ["  " + "  ".join(cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths)))
              for row in (head, *rows)]
    return "\n".join(lines)


def run_info(result: Result) -> dict:
    """config.json extras: peak memory, each preset's resolved plan and theory prior (what ran)."""
    plans = {p.preset: dataclasses.asdict(p) for p in result.config.plans()}
    priors = {f"{name}/{variant}": prior.label for (name, variant), prior in result.priors.items()}
    return {"peak_rss_gb": round(result.peak_rss_gb, 2), "plans": plans, "priors": priors}


def describe(result: Result) -> str:
    return f"{sum(len(v) for v in result.units.values())} units, peak RSS {result.peak_rss_gb:.2f} GB"


__all__ = ["COLUMNS", "Config", "DEFAULT_PLANS", "DEFAULT_PRESETS", "FULL_PRESETS", "NAME", "PresetPlan", "Result",
           "SMOKE", "default_plan", "expected_time", "figures", "main_table", "profile", "records", "resolve", "run",
           "summary", "variant_overrides", "verdict"]
