"""``lostmid compare`` (= ``python sims/pretrained_vs_init.py``): pretrained weights vs a random init.

For a Hugging Face GPT-2 / Qwen2 checkpoint (``--weights DIR``, loaded with
:func:`lostmid_jax.nn.load_hf`) and a random init of the same architecture,
measures the influence profile ||d y_L / d x_j||_F (j = 1..L) at the same L on
the same random tokens (each model embeds them with its own table; or shared
Gaussian inputs), the per-layer attention strength a_l, and compares each
profile with two theory rows (measured a_l; fitted constant a):
Spearman, Wasserstein-1, log10 peak-to-trough, valley (:mod:`..analysis.step0_report`).

Writes one run directory with config.json, profiles.csv, metrics.csv,
alphas.csv, table.txt and profiles.png, and prints the table.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import pathlib
import time

import numpy as np

from .. import io
from ._runs import add_run_arguments, script_main

METHODS = ("auto", "exact", "randomized")
INPUTS = ("tokens", "gaussian")
SMOKE = dict(length=24, seeds=2, probes=4)
EXACT_MAX_WIDTH = 256  # "auto": exact up to this width D, randomized above
MODELS = ("pretrained", "init")


@dataclasses.dataclass(frozen=True, kw_only=True)
class CompareConfig:
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
        for name, low in (("length", 2), ("probes", 1), ("seeds", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        if self.input not in INPUTS:
            raise ValueError(f"input must be one of {INPUTS}, got {self.input!r}")
        if self.chunk is not None and (not isinstance(self.chunk, int) or self.chunk < 1):
            raise ValueError(f"chunk must be an int >= 1, got {self.chunk!r}")
        if not 0 < self.band < 0.5:
            raise ValueError(f"band must be in (0, 0.5), got {self.band!r}")
        model_cfg = self.model_config()
        if model_cfg.position == "learned" and self.length > model_cfg.max_positions:
            raise ValueError(f"length={self.length} exceeds the checkpoint's max_positions={model_cfg.max_positions}")

    def model_config(self):
        """The checkpoint's DecoderConfig from its config.json (ValueError naming ``weights`` if absent)."""
        from ..nn.hf_config import config_from_hf

        config = pathlib.Path(self.weights) / "config.json"
        if not config.is_file():
            raise ValueError(f"weights: {self.weights!r} is not a directory with a config.json")
        return config_from_hf(json.loads(config.read_text()))[1]

    def resolved_method(self, width: int) -> str:
        """The method used for a model of width D."""
        if self.method != "auto":
            return self.method
        return "exact" if width <= EXACT_MAX_WIDTH else "randomized"


def register(subparsers) -> None:
    p = subparsers.add_parser("compare", help="influence profile of pretrained HF weights vs a random init, vs theory",
                              description=__doc__.splitlines()[0])
    add_arguments(p)
    p.set_defaults(func=run)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--weights", type=str, required=True, help="Hugging Face checkpoint directory (GPT-2 or Qwen2)")
    p.add_argument("--length", type=int, default=None, help="L (default 256; smoke 24)")
    p.add_argument("--method", type=str, default="auto", help=f"one of {METHODS}")
    p.add_argument("--probes", type=int, default=None, help="Gaussian probes for randomized (default 16; smoke 4)")
    p.add_argument("--seeds", type=int, default=None, help="input draws / init seeds (default 4; smoke 2)")
    p.add_argument("--input", type=str, default="tokens", help=f"one of {INPUTS}")
    p.add_argument("--chunk", type=int, default=None, help="cotangents per batched backward (default automatic)")
    add_run_arguments(p, "pretrained_vs_init", "L=24, 2 seeds")


def config_from_args(args) -> CompareConfig:
    """Build (and so validate) the config before any work starts."""
    fields = dict(SMOKE) if args.smoke else {}
    for name in ("length", "probes", "seeds", "chunk"):
        if getattr(args, name) is not None:
            fields[name] = getattr(args, name)
    return CompareConfig(weights=args.weights, method=args.method, input=args.input, **fields)


def _inputs(cfg: CompareConfig, model, seed: int, scale: float):
    """[L, D] input for unit ``seed``: embedded random tokens, or N(0, scale^2)."""
    rng = np.random.default_rng(seed)
    if cfg.input == "tokens":
        tokens = rng.integers(0, model.cfg.vocab_size, size=cfg.length)
        return model.embed(np.asarray(tokens, np.int32))
    return (scale * rng.standard_normal((cfg.length, model.cfg.width))).astype(model.cfg.param_dtype)


def _unit(cfg: CompareConfig, model, seed: int, scale: float) -> dict:
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


def measure(cfg: CompareConfig, *, progress: bool = True) -> tuple[object, dict]:
    """(model config, {"pretrained" | "init": step0_report-style summary}) for ``cfg``."""
    from flax import nnx
    from tqdm.auto import tqdm

    from ..analysis.step0_report import summarize_variant
    from ..nn import Decoder, load_hf

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
    return model_cfg, {name: summarize_variant(u, cfg.band) for name, u in units.items()}


COLUMNS = ("length", "depth", "a_fit", "spearman_measured", "wasserstein_measured", "spearman_fitted",
           "wasserstein_fitted", "log10_peak_to_trough", "log10_peak_to_trough_body",
           "theory_log10_peak_to_trough", "recency_weight", "primacy_mass", "middle_mass", "valley_x",
           "valley_c", "valley_r2", "seconds")


def metric_records(cfg: CompareConfig, model_cfg, summaries: dict) -> list[dict]:
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


def figure(summaries: dict, run_dir: pathlib.Path, title: str) -> pathlib.Path:
    """profiles.png: L p_j of each model with its two theory rows (log scale), and a_l per layer."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    from ..plots import COLORS

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    for ax, (name, s) in zip(axes[:2], summaries.items()):
        length = s["length"]
        x = np.arange(1, length + 1) / length
        p, sem = s["paths"]["total"]["p"], s["paths"]["total"]["p_sem"]
        ax.plot(x, length * p, "-", color=COLORS[0], lw=1.4, label="measured")
        ax.fill_between(x, length * np.clip(p - 2 * sem, p * 1e-3, None), length * (p + 2 * sem),
                        color=COLORS[0], alpha=0.25, lw=0)
        ax.plot(x, length * s["theory"]["measured"], "--", color=COLORS[1], label="theory, measured a_l")
        ax.plot(x, length * s["theory"]["fitted"], ":", color=COLORS[2], label=f"theory, fitted a={s['a_fit']:.3f}")
        ax.set_yscale("log")
        ax.set_xlabel("normalized input position x = j / L")
        ax.set_ylabel("influence density  L p_j  (log)")
        ax.set_title(f"{title}: {name} (L={length}, H={s['depth']})", fontsize=10)
        ax.legend(fontsize=8)
    for i, (name, s) in enumerate(summaries.items()):
        axes[2].errorbar(np.arange(s["depth"]), s["alphas"], yerr=s["alphas_sem"], marker="o", ms=3,
                         color=COLORS[i], label=name)
    axes[2].xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[2].set_xlabel("layer l")
    axes[2].set_ylabel("attention strength a_l")
    axes[2].legend(fontsize=8)
    fig.tight_layout()
    path = run_dir / "profiles.png"
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def run(args) -> int:
    cfg = config_from_args(args)
    start = time.perf_counter()
    run_dir = io.make_run_dir(args.root, "pretrained_vs_init", args.out)
    model_cfg, summaries = measure(cfg, progress=not args.no_progress)
    records = metric_records(cfg, model_cfg, summaries)
    io.write_csv(run_dir / "metrics.csv", records)
    io.write_csv(run_dir / "profiles.csv", profile_records(summaries))
    io.write_csv(run_dir / "alphas.csv", alpha_records(summaries))
    text = table(records)
    (run_dir / "table.txt").write_text(text + "\n")
    title = pathlib.Path(cfg.weights).resolve().name
    figures = [] if args.no_figures else [figure(summaries, run_dir, title)]
    elapsed = time.perf_counter() - start
    io.write_config(run_dir, cfg, model=model_cfg, smoke=args.smoke, seconds=round(elapsed, 3),
                    figures=[f.name for f in figures])
    print(text)
    print(f"\n{2 * cfg.seeds} units in {elapsed:.1f} s -> {run_dir}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run as a script (``python sims/pretrained_vs_init.py``)."""
    return script_main("pretrained_vs_init", __doc__.splitlines()[0], add_arguments, config_from_args, run, argv)
