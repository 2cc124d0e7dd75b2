"""Pretrained Hugging Face weights vs a random init of the same architecture, against theory.

Shapes: S seeds, L positions (j = 1..L, x = j/L), H layers (l = 1..H).

For a checkpoint (``checkpoint.weights``: a local directory, or a hub id resolved in the
local Hugging Face cache, :func:`lostmid_jax.nn.hf.hub.resolve_checkpoint`;
any family :func:`lostmid_jax.nn.load_hf` reads) and a random init of the
same architecture, measures the influence profile n_j = ||d y_L / d x_j||_F
at the same L on the same inputs for S seeds, and the per-layer attention
strength a_l. Each model's S normalized profiles p_s,j = n_s,j / sum_i n_s,i
are compared (:func:`lostmid_jax.analysis.agreement`: Spearman and
Wasserstein-1 of the seed mean, 95% bootstrap CIs over seeds, the seed-noise
ceiling) with two Step-0 theory rows of the architecture's own prior
(docs/theory.md §1-§2: measured a_l, and a fitted constant a), and the
pretrained profiles with the init ones (paired by seed). The prior is
``analysis.prior_for`` of the architecture; with ``--content-prior`` the
Content prior measured from the seed-0 init model
(:func:`lostmid_jax.analysis.measured_prior.measured_content_prior`; scores in content_scores.csv).

Writes metrics.csv, agreement.csv, profiles.csv, alphas.csv, table.txt,
verdict.txt and fig1_profiles. ``--smoke`` without ``--weights`` writes a tiny
random GPT-2 checkpoint with save_hf into <run_dir>/checkpoint and runs offline.

    config.py    what runs (Config, SMOKE, the tiny random GPT-2) and the checkpoint looked up once (look_up)
    measure.py   the units of both models, their summaries and agreements (run -> Result)
    tables.py    the CSV rows
    claims.py    the table and the verdict
    columns.py   what every CSV column means (COLUMNS)
    figures      drawn by lostmid_jax.plots.pretrained_vs_init from the CSVs alone
"""

from __future__ import annotations

import dataclasses

from ...probes.settings import SOURCE_SHORT_FLAGS
from .. import influence_settings
from .claims import table, verdict_lines
from .columns import COLUMNS
from .config import EXACT_MAX_WIDTH, INPUTS, METHODS, RANDOM_TINY, SMOKE, TINY_GPT2, Config, look_up
from .measure import MODELS, REFERENCES, TINY_SEED, Result, run
from .tables import agreement_records, alpha_records, metric_records, profile_records, records

NAME = "pretrained_vs_init"
VERDICT_TITLE = "pretrained vs random init vs Step-0 theory (95% CIs over seeds)"
SMOKE_HELP = f"L=16, 3 seeds; without --weights a tiny random GPT-2 ({RANDOM_TINY}), offline"
CLI_ALIASES = {**influence_settings.ALIASES, **SOURCE_SHORT_FLAGS}  # --length, --weights, ...: the earlier flags
FILES = {"checkpoint": "the tiny random GPT-2 (save_hf) measured as 'pretrained' (weights random:tiny-gpt2)"}


def summary(result: Result) -> str:
    return table(result)


def verdict(result: Result) -> list[str]:
    return verdict_lines(result)


def figures(tables: dict, cfg: Config) -> dict:
    """{"fig1_profiles": Figure} from the run's tables (:mod:`lostmid_jax.plots.pretrained_vs_init`)."""
    from ...plots.pretrained_vs_init import profiles_figure

    return {"fig1_profiles": profiles_figure(tables["profiles"], tables["alphas"], tables["metrics"], cfg.title)}


def run_info(result: Result) -> dict:
    info = {"model": result.model_config, "checkpoint_dir": result.checkpoint}
    if result.prior is not None:
        info["prior"] = result.prior.label
    return info


def resolve(cfg: Config):
    """The checkpoint looked up once with every refusal that needs it (:func:`.config.look_up`), before any model
    loads and before the run directory is claimed: runner.Resolved(the config with method "auto" replaced by the
    method that runs, by the checkpoint's width; the probes.checkpoint.ResolvedCheckpoint that :func:`run` loads)."""
    from ..runner import Resolved

    checkpoint = look_up(cfg)
    method = cfg.resolved_method(checkpoint.model_config.width)
    return Resolved(dataclasses.replace(cfg, influence=dataclasses.replace(cfg.influence, method=method)), checkpoint)


def describe(result: Result) -> str:
    return f"{2 * result.config.influence.seeds} units"


__all__ = ["COLUMNS", "Config", "EXACT_MAX_WIDTH", "FILES", "INPUTS", "METHODS", "MODELS", "NAME", "RANDOM_TINY",
           "REFERENCES", "Result", "SMOKE", "SMOKE_HELP", "TINY_GPT2", "TINY_SEED", "VERDICT_TITLE",
           "agreement_records", "alpha_records", "describe", "figures", "look_up", "metric_records", "profile_records",
           "records", "resolve", "run", "run_info", "summary", "table", "verdict", "verdict_lines"]
