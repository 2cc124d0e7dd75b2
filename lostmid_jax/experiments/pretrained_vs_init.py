"""Pretrained Hugging Face weights vs a random init of the same architecture, against theory.

Shapes: S seeds, L positions (j = 1..L, x = j/L), H layers (l = 1..H).

For a checkpoint (``weights``: a local directory, or a hub id resolved in the
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
"""

from __future__ import annotations

import dataclasses
import math
import logging
import pathlib
import time

import numpy as np

from ..analysis.measured_prior import CONTENT_SCORES
from ..runs.config import reading_stored, tuples_from_lists
from ..stats.columns import agreement_meanings
from ..stats.format import fmt, fmt_ci
from ..validation import check_bool_like, check_float
from . import influence_settings
from .influence_settings import INPUTS, InfluenceSettings

NAME = "pretrained_vs_init"
VERDICT_TITLE = "pretrained vs random init vs Step-0 theory (95% CIs over seeds)"
RANDOM_TINY = "random:tiny-gpt2"
SMOKE_HELP = f"L=16, 3 seeds; without --weights a tiny random GPT-2 ({RANDOM_TINY}), offline"
SMOKE = {"weights": RANDOM_TINY, "influence.length": 16, "influence.seeds": 3, "influence.probes": 4}
CLI_ALIASES = dict(influence_settings.ALIASES)  # --length for --influence.length, ...

METHODS = ("auto", "exact", "randomized")
EXACT_MAX_WIDTH = 256  # "auto": exact up to this width D, randomized above
MODELS = ("pretrained", "init")
FILES = {"checkpoint": "the tiny random GPT-2 (save_hf) measured as 'pretrained' (weights random:tiny-gpt2)"}
_LOG = logging.getLogger(__name__)
REFERENCES = ("theory_measured", "theory_fitted", "init")
# config.json of the tiny random checkpoint (RANDOM_TINY), read by nn.hf like any other
TINY_GPT2 = dict(model_type="gpt2", n_layer=2, n_embd=16, n_head=2, n_positions=256, vocab_size=64)
TINY_SEED = 1234  # init seed of the tiny "pretrained" model (the init models use seeds 0..S-1)

_AG = agreement_meanings(profile="the seed-mean profile")
COLUMNS = {
    "metrics.csv": {
        "model": ("'pretrained' (the checkpoint) or 'init' (a random init of its architecture)", ""),
        "method": ("influence profile method: 'exact' or 'randomized'", ""),
        "seeds": ("S, input draws (and init seeds) averaged", ""),
        "length": ("L, input positions", "tokens"),
        "depth": ("H, layers", "layers"),
        "a_mean": ("measured attention strength a_l averaged over layers and seeds", ""),
        "a_fit": ("constant a of the theory row fitted to the seed-mean profile", ""),
        "log10_peak_to_trough": ("log10 of max p_j / min p_j of the seed-mean profile", "log10"),
        "log10_peak_to_trough_body": ("the same without the last position j = L", "log10"),
        "theory_log10_peak_to_trough": ("log10 max / min of the theory row with measured a_l", "log10"),
        "recency_weight": ("p_L, the last position's share of the seed-mean profile", ""),
        "primacy_mass": ("share of the profile in x <= band", ""),
        "middle_mass": ("share of the profile in band < x < 1 - band", ""),
        "valley_x": ("x = j/L of the seed-mean profile's smallest entry", ""),
        "valley_c": ("exponent c of the fit p_j ~ b |x - 1/2|^(-c), last token left out (c < 0: a U)", ""),
        "valley_r2": ("R^2 of that log-log fit", ""),
    },
    "timings.csv": {
        "model": ("'pretrained' or 'init'", ""),
        "seconds": ("measurement time of the model's units (wall clock: differs from run to run, so it is kept "
                    "out of the result tables)", "s"),
    },
    "agreement.csv": {
        "model": ("the compared profiles: 'pretrained' or 'init' (S rows, one per seed)", ""),
        "reference": ("'theory_measured' (theory row, measured a_l), 'theory_fitted' (fitted constant a) or "
                      "'init' (the init profiles, paired by seed)", ""),
        **_AG,
        "rows": ("S, seeds compared", ""),
        "bins": ("positions compared (L: no binning)", ""),
    },
    "profiles.csv": {
        "model": ("'pretrained' or 'init'", ""),
        "j": ("input position, 1-based (1..L; L is the output token's own position)", ""),
        "x": ("normalized position j/L", ""),
        "p_mean": ("normalized influence p_j = n_j / sum_i n_i, mean over seeds", ""),
        "p_sem": ("standard error of p_mean over seeds", ""),
        "norm_mean": ("raw influence n_j = ||d y_L / d x_j||_F, mean over seeds", ""),
        "theory_measured": ("Step-0 theory row w_j with the measured a_l (docs/theory.md §2)", ""),
        "theory_fitted": ("Step-0 theory row w_j with the fitted constant a", ""),
    },
    "alphas.csv": {
        "model": ("'pretrained' or 'init'", ""),
        "layer": ("layer l, 1-based (1..H)", ""),
        "a_mean": ("measured attention strength a_l (mean over seeds)", ""),
        "a_sem": ("standard error of a_mean over seeds", ""),
    },
    "content_scores.csv": {  # written with --content-prior only
        "model": ("the model the scores were measured on: 'init' (init seed 0)", ""),
        **CONTENT_SCORES,
    },
}


@dataclasses.dataclass(frozen=True, kw_only=True)
class Config:
    """Arguments of the pretrained-vs-init comparison.

    Attributes:
      weights: checkpoint: a local directory (config.json + safetensors) or a Hugging Face hub id found in
        the local cache (fetch with `hf download ID`, or pass --allow-download); "random:tiny-gpt2" writes a
        tiny random GPT-2 with save_hf (the --smoke default; offline).
      allow_download: fetch a hub id that is not in the local cache (config.json and safetensors only).
      influence: how the profiles are measured (:class:`InfluenceSettings`).
      influence.length: L >= 2 positions (<= max_positions for learned position tables).
      influence.method: "exact" (D reverse passes), "randomized" (``probes`` Gaussian
        cotangents) or "auto" (exact for width <= 256, else randomized).
      influence.probes: K >= 1 probes for randomized.
      influence.seeds: S >= 2 input draws (the 95% CIs bootstrap over them); unit s
        uses tokens from seed s and, for the random init, init seed s.
      influence.input: "tokens" (uniform random token ids, embedded by each model) or
        "gaussian" (shared N(0, s^2) inputs, s the pretrained embedding's std).
      band: primacy / late band width in x for the U statistics.
      content_prior: compare both models with the Content prior measured from the seed-0 init model
        (self bonus and off-diagonal score per layer and head; content_scores.csv) instead of the
        architecture's plain prior (softmax attention only).
    """

    weights: str
    allow_download: bool = False
    RENAMED_FIELDS = dict(influence_settings.OLD_KEYS)  # flat config.json of earlier runs

    influence: InfluenceSettings = InfluenceSettings(length=256, method="auto", probes=16, seeds=4)
    band: float = 0.1
    content_prior: bool = False

    def __post_init__(self):
        if not isinstance(self.weights, str) or not self.weights:
            raise ValueError(f"weights must be a checkpoint directory or hub id, got {self.weights!r}")
        object.__setattr__(self, "allow_download", check_bool_like("allow_download", self.allow_download))
        object.__setattr__(self, "content_prior", check_bool_like("content_prior", self.content_prior))
        tuples_from_lists(self)
        if not isinstance(self.influence, InfluenceSettings):
            raise ValueError("influence must be an InfluenceSettings (or a dict of its fields)")
        self.influence.require(methods=METHODS, minimums={"seeds": 2}, given=("length", "method", "probes", "seeds"))
        check_float("band", self.band, 0, 0.5, open_min=True, open_max=True)
        if reading_stored():  # a run read back: never resolve the checkpoint (no hub, no network)
            return
        model_cfg = self.model_config().check_size()
        if model_cfg.position == "learned" and self.influence.length > model_cfg.max_positions:
            raise ValueError(f"influence.length={self.influence.length} exceeds the checkpoint's "
                             f"max_positions={model_cfg.max_positions}")
        if self.content_prior and model_cfg.attention != "softmax":
            raise ValueError(f"content_prior needs softmax attention (scores to measure); the checkpoint has "
                             f"attention={model_cfg.attention!r}")

    def checkpoint(self) -> pathlib.Path | None:
        """The checkpoint's local directory (None for the tiny random one); ValueError naming ``weights``."""
        return None if self.weights == RANDOM_TINY else self._resolved()[0]

    def model_config(self):
        """The checkpoint's DecoderConfig from its config.json; ValueError naming ``weights`` when the
        directory, its config.json or its weights file are missing or unreadable, or the id is not cached."""
        if self.weights == RANDOM_TINY:
            from ..nn.hf import config_from_hf

            return config_from_hf(TINY_GPT2)[1]
        return self._resolved()[1]

    def _resolved(self):
        from ..nn.hf.hub import checkpoint_config

        return checkpoint_config(self.weights, allow_download=self.allow_download)

    def resolved_method(self, width: int) -> str:
        """The method used for a model of width D."""
        if self.influence.method != "auto":
            return self.influence.method
        return "exact" if width <= EXACT_MAX_WIDTH else "randomized"

    @property
    def title(self) -> str:
        """The checkpoint's name in titles: the hub id, or the directory's name."""
        if self.weights == RANDOM_TINY:
            return "tiny random GPT-2"
        path = pathlib.Path(self.weights)
        return path.resolve().name if path.is_dir() else self.weights


def _inputs(cfg: Config, model, seed: int, scale: float):
    """[L, D] input for unit ``seed``: embedded random tokens, or N(0, scale^2)."""
    rng = np.random.default_rng(seed)
    if cfg.influence.input == "tokens":
        tokens = rng.integers(0, model.cfg.vocab_size, size=cfg.influence.length)
        return model.embed(np.asarray(tokens, np.int32))
    return (scale * rng.standard_normal((cfg.influence.length, model.cfg.width))).astype(model.cfg.param_dtype)


def _unit(cfg: Config, model, seed: int, scale: float) -> dict:
    """One measurement: profile norms [L] (and probe stderr), attention strength a_l [H]."""
    import jax

    from ..analysis import attention_strength, influence_profile

    start = time.perf_counter()
    x = _inputs(cfg, model, seed, scale)
    method = cfg.resolved_method(model.cfg.width)
    prof = influence_profile(model, x, method=method, probes=cfg.influence.probes, key=jax.random.key(seed),
                             chunk=cfg.influence.chunk)
    unit = dict(norms_total=prof.norms, alphas=attention_strength(model, x), seconds=time.perf_counter() - start)
    if prof.stderr is not None:
        unit["stderr_total"] = np.where(np.isfinite(prof.stderr), prof.stderr, 0.0)
    return unit


@dataclasses.dataclass(frozen=True)
class Result:
    """What :func:`run` returns.

    Attributes:
      config: the run's Config.
      model_config: the checkpoint's DecoderConfig.
      summaries: {"pretrained" | "init": summary} (:func:`lostmid_jax.analysis.seed_summary.summarize_variant`).
      agreements: {(model, reference): stats.agreement.Agreement} (reference in REFERENCES).
      checkpoint: the directory the weights were read from.
      prior: the theory prior both models were compared with (None: prior_for of the architecture).
    """

    config: Config
    model_config: object
    summaries: dict
    agreements: dict
    checkpoint: str
    prior: object = None


def _load(cfg: Config, run_dir):
    """(DecoderConfig, Decoder, directory) of the checkpoint; the tiny random one is written first."""
    from flax import nnx

    from ..nn import Decoder, load_hf, save_hf

    path = cfg.checkpoint()
    if path is None:
        import tempfile

        path = pathlib.Path(run_dir) / "checkpoint" if run_dir is not None else \
            pathlib.Path(tempfile.mkdtemp(prefix="lostmid_tiny_gpt2_"))
        model_cfg = cfg.model_config()
        _LOG.info(f"writing a tiny random GPT-2 checkpoint (seed {TINY_SEED}) with save_hf to {path}")
        save_hf(Decoder(model_cfg, rngs=nnx.Rngs(TINY_SEED)), model_cfg, path)
    _LOG.info(f"loading {path} with nn.load_hf")
    model_cfg, model = load_hf(path)
    return model_cfg, model, path


def run(cfg: Config, run_dir=None, *, progress: bool = True, mesh=None) -> Result:
    """Measure both models on every seed's input and compare them (``mesh`` unused).

    Set-up phases are logged (INFO) on this module's logger; the runner shows them on stderr.
    """
    from flax import nnx
    from tqdm.auto import tqdm

    from ..analysis import prior_for
    from ..stats.agreement import agreement
    from ..nn import Decoder
    from ..analysis.measured_prior import measured_content_prior
    from ..analysis.seed_summary import summarize_variant
    from ..runs.stop import checked

    model_cfg, pretrained, path = _load(cfg, run_dir)
    scale = float(np.std(np.asarray(pretrained.wte[...])))
    graphdef = nnx.graphdef(pretrained)
    units = {name: [] for name in MODELS}
    _LOG.info(f"measuring {cfg.influence.seeds} seeds x 2 models at L={cfg.influence.length} "
        f"({cfg.resolved_method(model_cfg.width)}; the first unit compiles)")
    bar = tqdm(total=2 * cfg.influence.seeds, disable=not progress, desc="units")
    for s in checked(range(cfg.influence.seeds)):
        units["pretrained"].append(_unit(cfg, pretrained, s, scale))
        bar.update()
        # the pretrained model's graphdef: the jitted engines compiled for it are reused
        init = nnx.merge(graphdef, nnx.state(Decoder(model_cfg, rngs=nnx.Rngs(s))))
        units["init"].append(_unit(cfg, init, s, scale))
        bar.update()
    bar.close()
    if cfg.content_prior:  # measured from the seed-0 init model
        _LOG.info("measuring the seed-0 init model's content scores (--content-prior)")
        prior = measured_content_prior(Decoder(model_cfg, rngs=nnx.Rngs(0)), cfg.influence.length)
    else:
        prior = prior_for(model_cfg, cfg.influence.length)  # the architecture's own Step-0 prior
    summaries = {name: summarize_variant(u, cfg.band, prior) for name, u in units.items()}
    rows = {name: np.stack([u["norms_total"] for u in us]) for name, us in units.items()}  # [S, L]
    agreements = {}
    for name in MODELS:
        for kind in ("measured", "fitted"):
            agreements[(name, f"theory_{kind}")] = agreement(rows[name], summaries[name]["theory"][kind])
    agreements[("pretrained", "init")] = agreement(rows["pretrained"], rows["init"])  # paired by seed
    return Result(cfg, model_cfg, summaries, agreements, str(path), prior)


def metric_records(cfg: Config, model_cfg, summaries: dict) -> list[dict]:
    """Rows of metrics.csv: one per model."""
    method = cfg.resolved_method(model_cfg.width)
    rows = []
    for name, s in summaries.items():
        values = dict(s, model=name, method=method, a_mean=float(np.mean(s["alphas"])))
        rows.append({k: _na(values[k]) for k in COLUMNS["metrics.csv"]})
    return rows


def _na(value):
    """None (an empty CSV field) for NaN; the value otherwise."""
    return None if isinstance(value, float) and math.isnan(value) else value


def agreement_records(agreements: dict) -> list[dict]:
    """Rows of agreement.csv: one per (model, reference)."""
    return [dict(model=model, reference=ref, **{k: _na(float(v)) for k, v in ag.columns().items()},
                 rows=ag.rows, bins=ag.bins) for (model, ref), ag in agreements.items()]


def profile_records(summaries: dict) -> list[dict]:
    """Rows of profiles.csv: one per (model, j), j = 1..L."""
    records = []
    for name, s in summaries.items():
        path, length = s["paths"]["total"], s["length"]
        for j in range(1, length + 1):
            records.append(dict(model=name, j=j, x=j / length, p_mean=path["p"][j - 1], p_sem=path["p_sem"][j - 1],
                                norm_mean=path["norms"][j - 1], theory_measured=s["theory"]["measured"][j - 1],
                                theory_fitted=s["theory"]["fitted"][j - 1]))
    return records


def alpha_records(summaries: dict) -> list[dict]:
    """Rows of alphas.csv: measured a_l per model and layer l = 1..H."""
    return [dict(model=name, layer=l + 1, a_mean=float(s["alphas"][l]), a_sem=float(s["alphas_sem"][l]))
            for name, s in summaries.items() for l in range(s["depth"])]


def _ci(value: float, ci, spec: str) -> str:
    return fmt_ci(value, *ci, spec, missing="n/a", no_ci="[CI n/a]")


def _describe(ag) -> str:
    """The points the intervals are centred on (bias-corrected Spearman and W1, so each lies inside its interval;
    the plain ones where there is no interval) and the ceiling."""
    rho = ag.spearman_bc if math.isfinite(ag.spearman_bc) else ag.spearman
    w1 = ag.wasserstein_bc if math.isfinite(ag.wasserstein_bc) else ag.wasserstein
    return (f"Spearman {_ci(rho, ag.spearman_ci, '.3f')}, W1 {_ci(w1, ag.wasserstein_ci, '.4f')} "
            f"(bias-corrected; seed-noise ceiling {_ci(ag.ceiling, ag.ceiling_ci, '.3f')})")


_LABEL = {"theory_measured": "Step-0 theory, measured a_l", "theory_fitted": "Step-0 theory, fitted a",
          "init": "the random init (paired by seed)"}


def table(result: Result) -> str:
    """Fixed-width table: per model a_l, fitted a, peak-to-trough; then every comparison with its 95% CI."""
    records = metric_records(result.config, result.model_config, result.summaries)
    head = (f"{'model':<11} {'method':<10} {'L':>5} {'H':>3} {'S':>3} {'mean a_l':>8} {'a_fit':>7} "
            f"{'log10 p/t':>9} {'theory p/t':>10} {'valley x':>8}")
    lines = [head, "-" * len(head)]
    for r in records:
        lines.append(f"{r['model']:<11} {r['method']:<10} {r['length']:>5} {r['depth']:>3} {r['seeds']:>3} "
                     f"{r['a_mean']:>8.4f} {fmt(r['a_fit'], '7.4f', 'n/a')} {fmt(r['log10_peak_to_trough'], '9.2f', 'n/a')} "
                     f"{fmt(r['theory_log10_peak_to_trough'], '10.2f', 'n/a')} {fmt(r['valley_x'], '8.3f', 'n/a')}")
    lines.append("")
    lines.append("agreement of the seed-mean profile with each reference, 95% CIs over seeds in brackets:")
    for (model, ref), ag in result.agreements.items():
        lines.append(f"  {model:<10} vs {_LABEL[ref]:<34} {_describe(ag)}")
    return "\n".join(lines)


def _disjoint_below(a, b) -> bool:
    """Whether the CI of ``a`` lies entirely below that of ``b`` (both finite)."""
    return all(map(math.isfinite, (*a, *b))) and a[1] < b[0]


def verdict_lines(result: Result) -> list[str]:
    """The comparisons a reader needs, each with its 95% CI, and what they say (docs/theory.md §5)."""
    ag = result.agreements
    cfg = result.config
    lines = []
    for model in MODELS:
        lines.append(f"{model} vs {_LABEL['theory_measured']}: {_describe(ag[(model, 'theory_measured')])}")
    pre, ini = ag[("pretrained", "theory_measured")], ag[("init", "theory_measured")]
    if _disjoint_below(pre.spearman_ci, ini.spearman_ci):
        call = ("the pretrained profile departs from the Step-0 prediction more than the random init does "
                "(Spearman CIs disjoint)")
    elif _disjoint_below(ini.spearman_ci, pre.spearman_ci):
        call = "the pretrained profile follows the Step-0 prediction more closely than the random init (CIs disjoint)"
    else:
        call = "no clear difference in Spearman against theory between pretrained and init (95% CIs overlap)"
    rough = f"; with {cfg.influence.seeds} seeds the bootstrap CIs are rough" if cfg.influence.seeds < 5 else ""
    lines.append(f"{call}{rough} (the paper's Step-0 claims concern the init: docs/theory.md §5)")
    between = ag[("pretrained", "init")]
    lines.append(f"pretrained vs {_LABEL['init']}: {_describe(between)}")
    if cfg.content_prior and result.prior is not None:
        lines.append(f"theory prior (--content-prior, measured from the seed-0 init model, content_scores.csv): "
                     f"{result.prior.label}")
    if cfg.weights == RANDOM_TINY:  # the smoke note comes first, as in every verdict
        lines.insert(0, "(smoke run: too small to test the paper's claims; the 'pretrained' model is a tiny random "
                        "GPT-2, so it is an init too)")
    return lines


def records(result: Result) -> dict[str, list[dict]]:
    """metrics.csv, agreement.csv, profiles.csv, alphas.csv, timings.csv (measurement times, apart from the
    results); content_scores.csv with --content-prior."""
    from ..analysis.measured_prior import content_records

    out = {"metrics.csv": metric_records(result.config, result.model_config, result.summaries),
           "agreement.csv": agreement_records(result.agreements),
           "profiles.csv": profile_records(result.summaries),
           "alphas.csv": alpha_records(result.summaries),
           "timings.csv": [{"model": name, "seconds": s["seconds"]} for name, s in result.summaries.items()]}
    if result.config.content_prior:
        out["content_scores.csv"] = content_records(result.prior, result.config.influence.length, model="init")
    return out


def summary(result: Result) -> str:
    return table(result)


def verdict(result: Result) -> list[str]:
    return verdict_lines(result)


def figures(tables: dict, cfg: Config) -> dict:
    """{"fig1_profiles": Figure} from the run's tables (:mod:`lostmid_jax.plots.pretrained_vs_init`)."""
    from ..plots.pretrained_vs_init import profiles_figure

    return {"fig1_profiles": profiles_figure(tables["profiles"], tables["alphas"], tables["metrics"], cfg.title)}


def run_info(result: Result) -> dict:
    info = {"model": result.model_config, "checkpoint_dir": result.checkpoint}
    if result.prior is not None:
        info["prior"] = result.prior.label
    return info


def resolve(cfg: Config) -> Config:
    """The config with method "auto" replaced by the method that runs (by the checkpoint's width)."""
    method = cfg.resolved_method(cfg.model_config().width)
    return dataclasses.replace(cfg, influence=dataclasses.replace(cfg.influence, method=method))


def describe(result: Result) -> str:
    return f"{2 * result.config.influence.seeds} units"
