"""The measurement: S seeds of the checkpoint and of a random init of its architecture (profiles n_j and a_l),
their summaries over seeds and their agreement with the Step-0 theory rows (Result)."""

from __future__ import annotations

import dataclasses
import logging
import pathlib
import time

import numpy as np

from .config import Config, look_up

MODELS = ("pretrained", "init")
REFERENCES = ("theory_measured", "theory_fitted", "init")
TINY_SEED = 1234  # init seed of the tiny "pretrained" model (the init models use seeds 0..S-1)
_LOG = logging.getLogger(__name__)


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

    from ...analysis import attention_strength, influence_profile

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


def _load(checkpoint, run_dir):
    """(DecoderConfig, Decoder, directory) of the checkpoint looked up (its config.json not read again); the tiny
    random one is written first."""
    from flax import nnx

    from ...nn import Decoder, load_hf, save_hf

    path = checkpoint.path
    if path is None:
        import tempfile

        path = pathlib.Path(run_dir) / "checkpoint" if run_dir is not None else \
            pathlib.Path(tempfile.mkdtemp(prefix="lostmid_tiny_gpt2_"))
        model_cfg = checkpoint.model_config
        _LOG.info(f"writing a tiny random GPT-2 checkpoint (seed {TINY_SEED}) with save_hf to {path}")
        save_hf(Decoder(model_cfg, rngs=nnx.Rngs(TINY_SEED)), model_cfg, path)
    _LOG.info(f"loading {path} with nn.load_hf")
    model_cfg, model = load_hf(path, hf_config=checkpoint.hf_config)
    return model_cfg, model, path


def run(cfg: Config, run_dir=None, *, progress: bool = True, mesh=None, resolved=None) -> Result:
    """Measure both models on every seed's input and compare them (``mesh`` unused). ``resolved``: the checkpoint
    as the experiment's resolve looked it up (None: looked up and checked here, :func:`.config.look_up`).

    Set-up phases are logged (INFO) on this module's logger; the runner shows them on stderr.
    """
    from flax import nnx
    from tqdm.auto import tqdm

    from ...analysis import prior_for
    from ...stats.agreement import agreement
    from ...nn import Decoder
    from ...analysis.measured_prior import measured_content_prior
    from ...analysis.seed_summary import summarize_variant
    from ...runs.stop import checked

    model_cfg, pretrained, path = _load(look_up(cfg) if resolved is None else resolved, run_dir)
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
