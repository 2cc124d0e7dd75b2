"""Arguments of the pretrained-vs-init comparison: the checkpoint and the Step-0 measurement (Config, its own
fields checked, nothing read), the checkpoint looked up once with the checks that need it (look_up), and the
tiny random GPT-2 of --smoke."""

from __future__ import annotations

import dataclasses

from ...probes.settings import RANDOM_TINY_GPT2, SOURCE_FLAT_FIELDS, CheckpointSource
from ...runs.config import tuples_from_lists
from ...validation import check_bool_like, check_float
from .. import influence_settings
from ..influence_settings import INPUTS, InfluenceSettings  # noqa: F401  (INPUTS: the old place of the name)

RANDOM_TINY = RANDOM_TINY_GPT2
SMOKE = {"checkpoint.weights": RANDOM_TINY, "influence.length": 16, "influence.seeds": 3, "influence.probes": 4}
METHODS = ("auto", "exact", "randomized")
EXACT_MAX_WIDTH = 256  # "auto": exact up to this width D, randomized above
# config.json of the tiny random checkpoint (RANDOM_TINY), read by nn.hf like any other
TINY_GPT2 = dict(model_type="gpt2", n_layer=2, n_embd=16, n_head=2, n_positions=256, vocab_size=64)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Config:
    """Arguments of the pretrained-vs-init comparison.

    Attributes:
      checkpoint: the model (probes.settings.CheckpointSource): checkpoint.weights, a local directory
        (config.json + safetensors) or a Hugging Face hub id found in the local cache (fetch with
        `hf download ID`, or pass --allow-download); "random:tiny-gpt2" writes a tiny random GPT-2 with save_hf
        (the --smoke default; offline). checkpoint.allow_download: fetch a hub id that is not in the local
        cache (config.json and safetensors only). Flags --checkpoint.weights, or --weights.
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

    checkpoint: CheckpointSource
    RENAMED_FIELDS = {**influence_settings.OLD_KEYS, **SOURCE_FLAT_FIELDS}  # flat config.json of earlier runs

    influence: InfluenceSettings = InfluenceSettings(length=256, method="auto", probes=16, seeds=4)
    band: float = 0.1
    content_prior: bool = False

    def __post_init__(self):
        object.__setattr__(self, "content_prior", check_bool_like("content_prior", self.content_prior))
        tuples_from_lists(self)
        if not isinstance(self.checkpoint, CheckpointSource):
            raise ValueError("checkpoint must be a CheckpointSource (or a dict of weights, allow_download)")
        if not isinstance(self.influence, InfluenceSettings):
            raise ValueError("influence must be an InfluenceSettings (or a dict of its fields)")
        self.influence.require(methods=METHODS, minimums={"seeds": 2}, given=("length", "method", "probes", "seeds"))
        check_float("band", self.band, 0, 0.5, open_min=True, open_max=True)

    def check_checkpoint(self, model_cfg) -> None:
        """The refusals that need the checkpoint's DecoderConfig (ValueError, one line naming the field): learned
        positions shorter than ``influence.length``, ``content_prior`` without softmax attention."""
        if model_cfg.position == "learned" and self.influence.length > model_cfg.max_positions:
            raise ValueError(f"influence.length={self.influence.length} exceeds the checkpoint's "
                             f"max_positions={model_cfg.max_positions}")
        if self.content_prior and model_cfg.attention != "softmax":
            raise ValueError(f"content_prior needs softmax attention (scores to measure); the checkpoint has "
                             f"attention={model_cfg.attention!r}")

    def resolved_method(self, width: int) -> str:
        """The method used for a model of width D."""
        if self.influence.method != "auto":
            return self.influence.method
        return "exact" if width <= EXACT_MAX_WIDTH else "randomized"

    @property
    def title(self) -> str:
        """The checkpoint's name in titles ("tiny random GPT-2", the directory's name, or the hub id)."""
        return self.checkpoint.title


def look_up(cfg: Config):
    """``cfg.checkpoint.weights`` resolved once (one config.json read; nothing for the tiny random GPT-2) and checked
    (:meth:`Config.check_checkpoint`), as the value every later step takes: a
    :class:`lostmid_jax.probes.checkpoint.ResolvedCheckpoint` (path None for the tiny random GPT-2, written when it
    loads; no tokenizer). ValueError naming ``weights`` when the directory, its config.json or its weights file are
    missing or unreadable, or the hub id is not cached."""
    from ...nn.hf import config_from_hf
    from ...probes.checkpoint import ResolvedCheckpoint, read_source

    source = cfg.checkpoint
    path, raw, model_cfg = read_source(source, RANDOM_TINY, lambda: config_from_hf(TINY_GPT2)[1])
    cfg.check_checkpoint(model_cfg)
    return ResolvedCheckpoint(source, path, raw, model_cfg)
