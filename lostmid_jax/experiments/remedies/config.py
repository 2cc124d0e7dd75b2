"""What `lostmid remedies` runs: the checkpoint, the probe design, the remedies and the measurements' sizes.

Everything a run could refuse is checked when the Config is built, before any
model is loaded: the checkpoint and its config.json, a tokenizer in text mode,
the passage count, the prompt length against a learned position table, each
remedy spec, the marker.
"""

from __future__ import annotations

import dataclasses

from ...probes.checkpoint import RANDOM_TINY, CheckpointSource, check_text_inputs, tiny_config
from ...runs.config import reading_stored
from ...validation import check_choice, check_float, check_int

MODES = ("text", "tokens")
DEFAULT_REMEDIES = ("rope_base:4", "rope_scaling:linear:2", "rope_scaling:dynamic:2", "rope_scaling:yarn:2",
                    "markers:0.25/0.5/0.75", "reorder:first", "reorder:last", "sinks:4:256")
SMOKE = {"weights": RANDOM_TINY, "passages": 3, "length": 48, "examples": 6, "candidates": 3,
         "attention_examples": 2, "influence_examples": 2, "n_boot": 200, "batch": 6,
         "remedies": ("rope_base:4", "rope_scaling:yarn:4:16", "rope_scaling:dynamic:2", "markers:0.5", "reorder:last",
                      "sinks:2:16")}
SMOKE_HELP = ("a tiny random Llama with a word-level tokenizer (written here, offline), 6 examples, T = 48, 6 remedies "
              "(rope_scaling:dynamic:2 a no-op at this length)")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Config(CheckpointSource):
    """Arguments of the remedies test.

    Attributes:
      weights: the checkpoint: a local directory (config.json + safetensors, and a tokenizer for the text
        probe) or a Hugging Face hub id in the local cache; "random:tiny-llama" writes a tiny random Llama with
        a word-level tokenizer (the --smoke default; offline).
      allow_download: fetch a hub id that is not in the local cache (config.json and safetensors only).
      remedies: remedy specs (lostmid_jax.probes.remedies): rope_base:F, rope_scaling:KIND:F[:P] (KIND linear,
        dynamic or yarn), markers:R1/R2/..., reorder:first, reorder:last, sinks:S[:W].
      marker: the marker of markers remedies: a token id (digits) or a string encoded with the tokenizer
        (default U+2060, the zero-width word joiner practitioners use).
      context: the original context P of rope_scaling remedies that name none (None: max_positions).
      mode: "text" (documents in words, the checkpoint's tokenizer) or "tokens" (keys and values as ids).
      passages: k >= 2 passages per document; the fact sits in passage p = 1..k.
      length: T, the prompt length in tokens (the question included), the same for every prompt.
      examples: E >= 2 examples, each scored with the fact in every passage, unmodified and per remedy.
      candidates: C >= 2 answers ranked per prompt (the right one and C - 1 other facts' answers).
      corpus: text mode: a directory of .txt files, one passage per paragraph, as filler (None: built-in).
      facts: text mode: a JSON-lines file of {fact, question, answer} (None: the built-in generator).
      key_tokens: tokens mode: ids per key.
      value_tokens: tokens mode: ids per value (the answer).
      low: tokens mode: the smallest id drawn (keep special ids below it).
      attention_examples: A >= 1 examples whose attention received is measured (fact in the middle passage).
      influence_examples: examples whose exact Jacobian influence profile is measured (0: none; D reverse
        passes each, so keep it small for wide models).
      theory_a: the attention strength a of the Step-0 theory row that predicts each remedy's effect.
      batch: prompts per scoring forward pass.
      n_boot: bootstrap replicates of every interval.
      seed: the generator's seed (facts, filler, distractors) and the bootstrap's.
    """

    weights: str
    allow_download: bool = False
    remedies: tuple[str, ...] = DEFAULT_REMEDIES
    marker: str = "\u2060"
    context: int | None = None
    mode: str = "text"
    passages: int = 5
    length: int = 1024
    examples: int = 40
    candidates: int = 5
    corpus: str | None = None
    facts: str | None = None
    key_tokens: int = 2
    value_tokens: int = 1
    low: int = 2
    attention_examples: int = 8
    influence_examples: int = 0
    theory_a: float = 0.5
    batch: int = 8
    n_boot: int = 2000
    seed: int = 0

    def __post_init__(self):
        from ...probes.remedies import parse_remedy

        self.check_source()
        object.__setattr__(self, "remedies", tuple(self.remedies))
        if not self.remedies:
            raise ValueError("remedies must name at least one remedy (e.g. rope_base:4)")
        labels = [parse_remedy(r).label for r in self.remedies]
        if len(set(labels)) != len(labels):
            raise ValueError(f"remedies must be distinct, got {self.remedies!r}")
        check_choice("mode", self.mode, MODES)
        for name, low in (("passages", 2), ("length", 8), ("examples", 2), ("candidates", 2), ("key_tokens", 1),
                          ("value_tokens", 1), ("low", 0), ("attention_examples", 1), ("influence_examples", 0),
                          ("batch", 1), ("n_boot", 100), ("seed", 0)):
            check_int(name, getattr(self, name), low)
        if self.context is not None:
            check_int("context", self.context, 1)
        check_float("theory_a", self.theory_a, 0, 1)
        if not isinstance(self.marker, str) or not self.marker:
            raise ValueError(f"marker must be a token id or a non-empty string, got {self.marker!r}")
        if self.mode == "tokens" and not self.marker.isdigit() and any(r.startswith("markers") for r in self.remedies):
            raise ValueError(f"marker must be a token id (digits) in mode 'tokens', got {self.marker!r}")
        if reading_stored():  # a run read back: its own fields only, no checkpoint resolved (no hub, no network)
            return
        model_cfg = self.checked_model_config()
        if self.marker.isdigit() and int(self.marker) >= model_cfg.vocab_size:
            raise ValueError(f"marker: token id {self.marker} is outside the vocabulary [0, {model_cfg.vocab_size})")
        if model_cfg.position == "learned" and self.positions_needed > model_cfg.max_positions:
            raise ValueError(f"length: the prompts (with markers and the answer) need {self.positions_needed} "
                             f"positions but the checkpoint's learned position table holds "
                             f"max_positions={model_cfg.max_positions}")
        if self.mode == "text":
            check_text_inputs(self)

    @property
    def positions_needed(self) -> int:
        """A lower bound of the positions a scoring forward uses: T, the markers (one id each at least) and the
        answer's ids beyond the first."""
        from ...probes.remedies import parse_remedy

        markers = max([len(parse_remedy(r).at) for r in self.remedies if r.startswith("markers")] or [0])
        return self.length + markers + (self.value_tokens - 1 if self.mode == "tokens" else 0)



__all__ = ["Config", "DEFAULT_REMEDIES", "MODES", "RANDOM_TINY", "SMOKE", "SMOKE_HELP", "tiny_config"]
