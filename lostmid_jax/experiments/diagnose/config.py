"""What `lostmid diagnose` runs: the checkpoint, the probe design, the measurements' sizes.

Everything a run could refuse is checked here, when the Config is built,
before any model is loaded: the checkpoint and its config.json, a tokenizer
in text mode, the passage count, the prompt length against a learned
position table, the user's corpus and facts files.
"""

from __future__ import annotations

import dataclasses

from ...probes.checkpoint import RANDOM_TINY, CheckpointSource, check_text_inputs, tiny_config
from ...runs.config import reading_stored
from ...validation import check_choice, check_float, check_int

MODES = ("text", "tokens")
METHODS = ("auto", "exact", "randomized")
EXACT_MAX_WIDTH = 256  # method "auto": exact influence profiles up to this width, randomized above
SMOKE = {"weights": RANDOM_TINY, "passages": 3, "lengths": (32, 48), "examples": 6, "candidates": 3,
         "attention_examples": 3, "profile_examples": 2, "heat_bins": 16, "n_boot": 200, "batch": 6}
SMOKE_HELP = "a tiny random Llama with a word-level tokenizer (written here, offline), 6 examples, T = 32 and 48"
TINY_GAIN = 5.0  # its weight matrices are scaled by this (std 0.1), so its attention is not uniform


@dataclasses.dataclass(frozen=True, kw_only=True)
class Config(CheckpointSource):
    """Arguments of the diagnosis of a trained model.

    Attributes:
      weights: the checkpoint: a local directory (config.json + safetensors, and a tokenizer for the text
        probe) or a Hugging Face hub id in the local cache; "random:tiny-llama" writes a tiny random Llama with
        a word-level tokenizer (the --smoke default; offline).
      allow_download: fetch a hub id that is not in the local cache (config.json and safetensors only).
      mode: "text" (documents in words, the checkpoint's tokenizer) or "tokens" (keys and values as token ids,
        no tokenizer: any model).
      passages: k >= 2 passages per document; the fact sits in passage p = 1..k.
      lengths: the prompt lengths T in tokens (the question included) of the position test, one test per
        length (e.g. 1024,4096,16384); attention and influence profiles are measured at the first.
      examples: E >= 2 examples (facts), each scored with the fact in every passage.
      candidates: C >= 2 answers ranked per prompt (the right one and C - 1 other facts' answers).
      corpus: text mode: a directory of .txt files, one passage per paragraph, as filler (None: built-in).
      facts: text mode: a JSON-lines file of {fact, question, answer} (None: the built-in generator).
      key_tokens: tokens mode: ids per key.
      value_tokens: tokens mode: ids per value (the answer).
      attention_examples: prompts (fact in the middle passage) whose attention received is measured.
      layers: layers (1-based) whose attention received is recorded; empty: every layer.
      heat_bins: bins per axis of the last layer's heat map of |S_i| A_ij.
      profile_examples: S >= 2 prompts whose influence profiles are measured on the trained model and on a
        Step-0 init of its architecture (init seed s for prompt s).
      method: influence profile estimator: "exact", "randomized" or "auto" (exact up to width 256).
      probes: Gaussian probes of the randomized estimator.
      band: width in x of the end bands (x <= band, x >= 1 - band) for the valley depth and the U statistics.
      batch: prompts per scoring forward pass.
      n_boot: bootstrap replicates of every interval.
      seed: the generator's seed (facts, filler, distractors) and the bootstrap's.
    """

    weights: str
    allow_download: bool = False
    mode: str = "text"
    passages: int = 5
    lengths: tuple[int, ...] = (1024,)
    examples: int = 40
    candidates: int = 5
    corpus: str | None = None
    facts: str | None = None
    key_tokens: int = 2
    value_tokens: int = 1
    attention_examples: int = 8
    layers: tuple[int, ...] = ()
    heat_bins: int = 64
    profile_examples: int = 4
    method: str = "auto"
    probes: int = 16
    band: float = 0.1
    batch: int = 8
    n_boot: int = 2000
    seed: int = 0

    def __post_init__(self):
        self.check_source()
        check_choice("mode", self.mode, MODES)
        check_choice("method", self.method, METHODS)
        for name, low in (("passages", 2), ("examples", 2), ("candidates", 2), ("key_tokens", 1),
                          ("value_tokens", 1), ("attention_examples", 1), ("heat_bins", 1),
                          ("profile_examples", 2), ("probes", 1), ("batch", 1), ("n_boot", 100), ("seed", 0)):
            check_int(name, getattr(self, name), low)
        check_float("band", self.band, 0, 0.5, open_min=True, open_max=True)
        layers = tuple(self.layers)
        object.__setattr__(self, "layers", layers)
        lengths = tuple(self.lengths) if not isinstance(self.lengths, (str, bytes)) else ()
        if not lengths or len(set(lengths)) != len(lengths):
            raise ValueError(f"lengths must be one or more distinct prompt lengths >= 8, got {self.lengths!r}")
        object.__setattr__(self, "lengths", tuple(check_int("lengths", t, 8) for t in lengths))
        if reading_stored():  # a run read back: its own fields only, no checkpoint resolved (no hub, no network)
            return
        model_cfg = self.checked_model_config()
        if any(isinstance(l, bool) or not isinstance(l, int) or not 1 <= l <= model_cfg.depth for l in layers):
            raise ValueError(f"layers must be 1-based layer numbers in [1, {model_cfg.depth}], got {layers!r}")
        needed = max(self.lengths) + (self.value_tokens - 1 if self.mode == "tokens" else 0)
        if model_cfg.position == "learned" and needed > model_cfg.max_positions:
            raise ValueError(f"lengths: the prompts need {needed} positions but the checkpoint's learned position "
                             f"table holds max_positions={model_cfg.max_positions}")
        if self.mode == "text":
            check_text_inputs(self)

    def resolved_method(self, width: int) -> str:
        """The influence profile method for a model of width D."""
        if self.method != "auto":
            return self.method
        return "exact" if width <= EXACT_MAX_WIDTH else "randomized"



__all__ = ["Config", "MODES", "RANDOM_TINY", "SMOKE", "SMOKE_HELP", "tiny_config"]
