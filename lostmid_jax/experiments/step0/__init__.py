"""Step 0: Jacobian influence profiles of freshly initialized decoders vs the exact theory.

Reproduces the paper's central Step-0 measurement (Chowdhury, arXiv:2603.10123):
||d y_L / d x_j||_F for the toy, GPT-2 small/medium and Qwen2-0.5B replicas,
position encodings on and off, a RoPE base sweep and several seeds, compared
with theory rows from the measured a_l and from a fitted constant a.

    config.py    what to run (presets, variants, seeds, estimator)
    measure.py   one unit (preset, variant, seed) -> arrays, saved as units/*.npz (resumable)
    report.py    per (preset, variant) summaries and the CSV rows
    claims.py    the table and the verdict on the paper's claims

Writes config.json, units/*.npz, profiles.csv, metrics.csv, alphas.csv,
table.txt, verdict.txt and the figures; the same run directory resumes.
"""

from __future__ import annotations

import dataclasses
import pathlib

from .config import DEFAULT_PLANS, SMOKE, Config, PresetPlan, model_config, variant_overrides

NAME = "step0"
VERDICT_TITLE = "the paper's Step-0 claims, native variant of each preset"
SMOKE_HELP = "toy preset, L=48, 2 seeds, 4 probes"
RESUMABLE = True
USES_DEVICES = True
CLI_ALIASES = {"preset": "presets", "dtype": "param_dtype"}


@dataclasses.dataclass(frozen=True)
class Result:
    """What :func:`run` returns.

    Attributes:
      config: the run's Config.
      units: {(preset, variant): [arrays of each seed's unit]}.
      summaries: {(preset, variant): summary dict} (:func:`.report.summarize`).
      priors: {(preset, variant): the model's theory prior} (:func:`lostmid_jax.analysis.prior_for`).
      peak_rss_gb: the process's peak resident memory after the run.
    """

    config: Config
    units: dict
    summaries: dict
    priors: dict
    peak_rss_gb: float


def run(cfg: Config, run_dir, *, progress: bool = True, mesh=None) -> Result:
    """Measure (or resume) every unit, then summarize (:mod:`.measure`, :mod:`.report`)."""
    import resource

    import jax

    from ...analysis import prior_for
    from ..runner import writes_files
    from . import measure, report

    if cfg.param_dtype == "float64":
        jax.config.update("jax_enable_x64", True)
    units = measure.run_all(cfg, pathlib.Path(run_dir), progress=progress and writes_files(), mesh=mesh)
    plans = {p.preset: p for p in cfg.plans()}
    priors = {(name, variant): prior_for(model_config(name, variant), plans[name].length)
              for name, variant in units}
    summaries = report.summarize(units, cfg.band, priors) if writes_files() else {}
    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    return Result(cfg, units, summaries, priors, peak_gb)


def records(result: Result) -> dict[str, list[dict]]:
    """profiles.csv, metrics.csv, alphas.csv (:mod:`.report`)."""
    from . import report

    plans = {p.preset: p for p in result.config.plans()}
    return {"profiles.csv": report.profile_records(result.summaries),
            "metrics.csv": report.metric_records(result.summaries, plans),
            "alphas.csv": report.alpha_records(result.summaries)}


def summary(result: Result) -> str:
    from .claims import table

    return table(result.summaries)


def verdict(result: Result) -> list[str]:
    from .claims import verdict as claims_verdict

    return claims_verdict(result.summaries)


def figures(result: Result, run_dir) -> list:
    from ...plots.step0 import all_figures

    return all_figures(result.summaries, run_dir)


def run_info(result: Result) -> dict:
    """config.json extras: peak memory, each preset's resolved plan and theory prior (what ran)."""
    plans = {p.preset: dataclasses.asdict(p) for p in result.config.plans()}
    priors = {f"{name}/{variant}": prior.label for (name, variant), prior in result.priors.items()}
    return {"peak_rss_gb": round(result.peak_rss_gb, 2), "plans": plans, "priors": priors}


def describe(result: Result) -> str:
    return f"{sum(len(v) for v in result.units.values())} units, peak RSS {result.peak_rss_gb:.2f} GB"


__all__ = ["Config", "DEFAULT_PLANS", "NAME", "PresetPlan", "Result", "SMOKE", "figures", "records",
           "run", "summary", "variant_overrides", "verdict"]
