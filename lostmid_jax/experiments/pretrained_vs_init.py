"""Pretrained Hugging Face weights vs a random init of the same architecture, against theory.

For a Hugging Face GPT-2 / Qwen2 checkpoint (``weights``, loaded with
:func:`lostmid_jax.nn.load_hf`) and a random init of the same architecture,
measures the influence profile ||d y_L / d x_j||_F (j = 1..L) at the same L on
the same random tokens (each model embeds them with its own table; or shared
Gaussian inputs), the per-layer attention strength a_l, and compares each
profile with two theory rows (measured a_l; fitted constant a): Spearman,
Wasserstein-1, log10 peak-to-trough, valley (:mod:`.step0.report`).

Writes metrics.csv, profiles.csv, alphas.csv, table.txt and profiles.png.
"""

from __future__ import annotations

import dataclasses
import math
import pathlib
import time

import numpy as np

from ..validation import check_choice, check_float, check_int, check_optional_int

NAME = "pretrained_vs_init"
VERDICT_TITLE = ""
SMOKE_HELP = "L=24, 2 seeds, 4 probes"

METHODS = ("auto", "exact", "randomized")
INPUTS = ("tokens", "gaussian")
SMOKE = {"length": 24, "seeds": 2, "probes": 4}
EXACT_MAX_WIDTH = 256  # "auto": exact up to this width D, randomized above
MODELS = ("pretrained", "init")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Config:
    """Arguments of the pretrained-vs-init comparison.

    Attributes:
      weights: checkpoint directory (config.json + model.safetensors).
      length: L >= 2 positions (<= max_positions for GPT-2's learned table).
      method: "exact" (D reverse passes), "randomized" (``probes`` Gaussian
        cotangents) or "auto" (exact for width <= 256, else randomized).
      probes: K >= 1 probes for randomized.
      seeds: S >= 1 input draws; unit s uses tokens from seed s and, for the
        random init, init seed s (profiles are averaged over units).
      input: "tokens" (uniform random token ids, embedded by each model) or
        "gaussian" (shared N(0, s^2) inputs, s the pretrained embedding's std).
      chunk: cotangents per batched backward pass (None: automatic).
      band: primacy / late band width in x for the U statistics.
    """

    weights: str
    length: int = 256
    method: str = "auto"
    probes: int = 16
    seeds: int = 4
    input: str = "tokens"
    chunk: int | None = None
    band: float = 0.1

    def __post_init__(self):
        if not isinstance(self.weights, str) or not self.weights:
            raise ValueError(f"weights must be a checkpoint directory, got {self.weights!r}")
        for name, low in (("length", 2), ("probes", 1), ("seeds", 1)):
            check_int(name, getattr(self, name), low)
        check_choice("method", self.method, METHODS)
        check_choice("input", self.input, INPUTS)
        check_optional_int("chunk", self.chunk, 1)
        check_float("band", self.band, 0, 0.5, open_min=True, open_max=True)
        model_cfg = self.model_config()
        if model_cfg.position == "learned" and self.length > model_cfg.max_positions:
            raise ValueError(f"length={self.length} exceeds the checkpoint's max_positions={model_cfg.max_positions}")

    def model_config(self):
        """The checkpoint's DecoderConfig from its config.json; ValueError naming ``weights`` when the
        directory, its config.json or its weights file are missing or unreadable."""
        from ..nn.hf_config import config_from_hf, read_config, weights_file

        try:
            raw = read_config(self.weights)
            weights_file(self.weights)
        except (FileNotFoundError, ValueError) as err:
            raise ValueError(f"weights: {err}") from None
        return config_from_hf(raw)[1]

    def resolved_method(self, width: int) -> str:
        """The method used for a model of width D."""
        if self.method != "auto":
            return self.method
        return "exact" if width <= EXACT_MAX_WIDTH else "randomized"


def _inputs(cfg: Config, model, seed: int, scale: float):
    """[L, D] input for unit ``seed``: embedded random tokens, or N(0, scale^2)."""
    rng = np.random.default_rng(seed)
    if cfg.input == "tokens":
        tokens = rng.integers(0, model.cfg.vocab_size, size=cfg.length)
        return model.embed(np.asarray(tokens, np.int32))
    return (scale * rng.standard_normal((cfg.length, model.cfg.width))).astype(model.cfg.param_dtype)


def _unit(cfg: Config, model, seed: int, scale: float) -> dict:
    """One measurement: profile norms [L] (and probe stderr), attention strength a_l [H]."""
    import jax

    from ..analysis import attention_strength, influence_profile

    start = time.perf_counter()
    x = _inputs(cfg, model, seed, scale)
    method = cfg.resolved_method(model.cfg.width)
    prof = influence_profile(model, x, method=method, probes=cfg.probes, key=jax.random.key(seed), chunk=cfg.chunk)
    unit = dict(norms_total=prof.norms, alphas=attention_strength(model, x), seconds=time.perf_counter() - start)
    if prof.stderr is not None:
        unit["stderr_total"] = np.where(np.isfinite(prof.stderr), prof.stderr, 0.0)
    return unit


@dataclasses.dataclass(frozen=True)
class Result:
    """What :func:`run` returns: the config, the checkpoint's DecoderConfig and
    {"pretrained" | "init": summary} (:func:`.step0.report.summarize_variant`)."""

    config: Config
    model_config: object
    summaries: dict


def run(cfg: Config, run_dir=None, *, progress: bool = True, mesh=None) -> Result:
    """Measure both models on every seed's input (``run_dir`` and ``mesh`` unused)."""
    from flax import nnx
    from tqdm.auto import tqdm

    from ..analysis import prior_for
    from ..nn import Decoder, load_hf
    from .step0.report import summarize_variant

    model_cfg, pretrained = load_hf(cfg.weights)
    scale = float(np.std(np.asarray(pretrained.wte[...])))
    graphdef = nnx.graphdef(pretrained)
    units = {name: [] for name in MODELS}
    bar = tqdm(total=2 * cfg.seeds, disable=not progress, desc="units")
    for s in range(cfg.seeds):
        units["pretrained"].append(_unit(cfg, pretrained, s, scale))
        bar.update()
        # the pretrained model's graphdef: the jitted engines compiled for it are reused
        init = nnx.merge(graphdef, nnx.state(Decoder(model_cfg, rngs=nnx.Rngs(s))))
        units["init"].append(_unit(cfg, init, s, scale))
        bar.update()
    bar.close()
    prior = prior_for(model_cfg, cfg.length)  # the architecture's own Step-0 prior
    return Result(cfg, model_cfg, {name: summarize_variant(u, cfg.band, prior) for name, u in units.items()})


COLUMNS = ("length", "depth", "a_fit", "spearman_measured", "wasserstein_measured", "spearman_fitted",
           "wasserstein_fitted", "log10_peak_to_trough", "log10_peak_to_trough_body",
           "theory_log10_peak_to_trough", "recency_weight", "primacy_mass", "middle_mass", "valley_x",
           "valley_c", "valley_r2", "seconds")


def metric_records(cfg: Config, model_cfg, summaries: dict) -> list[dict]:
    """Rows of metrics.csv: one per model, plus the Spearman between the two profiles."""
    from ..analysis import metrics

    between = metrics.spearman(summaries["pretrained"]["paths"]["total"]["p"], summaries["init"]["paths"]["total"]["p"])
    method = cfg.resolved_method(model_cfg.width)
    return [dict(model=name, method=method, seeds=s["seeds"], a_mean=float(np.mean(s["alphas"])),
                 spearman_pretrained_vs_init=between, **{c: s[c] for c in COLUMNS})
            for name, s in summaries.items()]


def profile_records(summaries: dict) -> list[dict]:
    """Rows of profiles.csv: one per (model, j)."""
    records = []
    for name, s in summaries.items():
        path, x = s["paths"]["total"], np.arange(1, s["length"] + 1) / s["length"]
        for j in range(s["length"]):
            records.append(dict(model=name, j=j + 1, x=x[j], p_mean=path["p"][j], p_sem=path["p_sem"][j],
                                norm_mean=path["norms"][j], theory_measured=s["theory"]["measured"][j],
                                theory_fitted=s["theory"]["fitted"][j]))
    return records


def alpha_records(summaries: dict) -> list[dict]:
    """Rows of alphas.csv: measured a_l per model and layer."""
    return [dict(model=name, layer=l, a_mean=float(s["alphas"][l]), a_sem=float(s["alphas_sem"][l]))
            for name, s in summaries.items() for l in range(s["depth"])]


def _fmt(value, spec: str) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else format(value, spec)


def table(records: list[dict]) -> str:
    """Fixed-width table of metrics.csv."""
    head = (f"{'model':<11} {'method':<10} {'L':>5} {'H':>3} {'a_mean':>7} {'a_fit':>7} {'rho_meas':>8} "
            f"{'W1_meas':>8} {'rho_fit':>8} {'W1_fit':>8} {'log10 p/t':>9} {'theory p/t':>10} {'valley x':>8}")
    lines = [head, "-" * len(head)]
    for r in records:
        lines.append(
            f"{r['model']:<11} {r['method']:<10} {r['length']:>5} {r['depth']:>3} {r['a_mean']:>7.4f} "
            f"{r['a_fit']:>7.4f} {_fmt(r['spearman_measured'], '8.4f')} {r['wasserstein_measured']:>8.4f} "
            f"{_fmt(r['spearman_fitted'], '8.4f')} {r['wasserstein_fitted']:>8.4f} "
            f"{_fmt(r['log10_peak_to_trough'], '9.2f')} {_fmt(r['theory_log10_peak_to_trough'], '10.2f')} "
            f"{r['valley_x']:>8.3f}")
    lines.append(f"Spearman(pretrained profile, init profile) = {_fmt(records[0]['spearman_pretrained_vs_init'], '.4f')}")
    return "\n".join(lines)


def records(result: Result) -> dict[str, list[dict]]:
    """metrics.csv, profiles.csv, alphas.csv."""
    return {"metrics.csv": metric_records(result.config, result.model_config, result.summaries),
            "profiles.csv": profile_records(result.summaries),
            "alphas.csv": alpha_records(result.summaries)}


def summary(result: Result) -> str:
    return table(metric_records(result.config, result.model_config, result.summaries))


def verdict(result: Result) -> list[str]:
    return []


def figures(result: Result, run_dir) -> list:
    """profiles.png (:mod:`lostmid_jax.plots.pretrained_vs_init`)."""
    from ..plots.pretrained_vs_init import all_figures

    return all_figures(result.summaries, run_dir, pathlib.Path(result.config.weights).resolve().name)


def run_info(result: Result) -> dict:
    return {"model": result.model_config}


def resolve(cfg: Config) -> Config:
    """The config with method "auto" replaced by the method that runs (by the checkpoint's width)."""
    return dataclasses.replace(cfg, method=cfg.resolved_method(cfg.model_config().width))


def describe(result: Result) -> str:
    return f"{2 * result.config.seeds} units"
