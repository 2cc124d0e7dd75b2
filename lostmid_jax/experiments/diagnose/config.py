"""What `lostmid diagnose` runs: the checkpoint, the probe design, the measurements' sizes.

A Config checks its own fields when it is built (nothing read, nothing
looked up). What needs the checkpoint is checked once it is resolved
(:meth:`Config.check_checkpoint`, in the experiment's resolve step), before
any model is loaded and before the run directory is claimed: its config.json,
a tokenizer in text mode and every string it cannot write (probes.unknown),
answers that tokenize alike, the layers, the prompt lengths against the
trained context (probes.context), the user's corpus and facts files, and the
run's work and memory against the resource limits (probes.cost, ``--limits``).
"""

from __future__ import annotations

import dataclasses

from ...probes.checkpoint import RANDOM_TINY, CheckpointSource, tiny_config
from ...probes.context import check_context
from ...probes.cost import Cost
from ...validation import check_choice, check_float, check_int

MODES = ("text", "tokens")
DTYPES = ("float32", "bfloat16")
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
      dtype: the parameters' and activations' dtype: float32 or bfloat16 (large checkpoints; scores within
        the tolerance docs/diagnose.md states).
      allow_unknown_tokens: measure prompts, facts and answers the tokenizer maps to its unknown id (e.g. [UNK])
        instead of refusing them; the verdict counts them.
      allow_extrapolation: measure lengths beyond the checkpoint's trained context (max_position_embeddings, or
        the rope_scaling context) instead of refusing them; the tables and the verdict mark them.
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
    dtype: str = "float32"
    allow_unknown_tokens: bool = False
    allow_extrapolation: bool = False

    def __post_init__(self):
        self.check_source()
        self.check_flags(DTYPES)
        check_choice("mode", self.mode, MODES)
        check_choice("method", self.method, METHODS)
        for name, low in (("passages", 2), ("examples", 2), ("candidates", 2), ("key_tokens", 1),
                          ("value_tokens", 1), ("attention_examples", 1), ("heat_bins", 1),
                          ("profile_examples", 2), ("probes", 1), ("batch", 1), ("n_boot", 100), ("seed", 0)):
            check_int(name, getattr(self, name), low)
        check_float("band", self.band, 0, 0.5, open_min=True, open_max=True)
        layers = tuple(self.layers)
        object.__setattr__(self, "layers", layers)
        lengths = self.lengths_tuple()
        if not lengths or len(set(lengths)) != len(lengths):
            raise ValueError(f"lengths must be one or more distinct prompt lengths >= 8, got {self.lengths!r}")
        object.__setattr__(self, "lengths", tuple(check_int("lengths", t, 8) for t in lengths))

    def check_checkpoint(self, checkpoint) -> None:
        """The refusals that need the checkpoint (``probes.checkpoint.resolve_checkpoint``'s value, text mode's
        checks already done there): layers within its depth, the lengths within its trained context, the run's
        cost within the resource limits (ValueError, one line naming the field)."""
        model_cfg = checkpoint.model_config
        layers = self.layers
        if any(isinstance(l, bool) or not isinstance(l, int) or not 1 <= l <= model_cfg.depth for l in layers):
            raise ValueError(f"layers must be 1-based layer numbers in [1, {model_cfg.depth}], got {layers!r}")
        answer_ids = checkpoint.answer_ids or self.value_tokens
        check_context(model_cfg, {t: t + answer_ids - 1 for t in self.lengths}, allow=self.allow_extrapolation)
        self.cost(model_cfg, answer_ids).check(f"diagnose: lengths={','.join(map(str, self.lengths))}, examples="
                                               f"{self.examples}, batch={self.batch}, n_boot={self.n_boot}")

    def cost(self, model_cfg, answer_ids: int = 1) -> Cost:
        """The run's estimated CPU seconds and peak memory (probes.cost) for the checkpoint ``model_cfg``."""
        import dataclasses as dc

        m = dc.replace(model_cfg, param_dtype=self.dtype, dtype=None)
        e, k, first = self.examples, self.passages, self.lengths[0]
        rows = e * k * (1 if answer_ids == 1 else self.candidates)
        att, prof = min(self.attention_examples, e), min(self.profile_examples, e)
        backward = m.width if self.resolved_method(m.width) == "exact" else self.probes
        total = Cost.weights(m, copies=2)
        for t in self.lengths:
            total += Cost.forward(m, rows=rows, length=t + answer_ids - 1, batch=self.batch, answer_ids=answer_ids)
            total += Cost.paired(replicates=self.n_boot, units=e, fits=2)
        total += Cost.attention(m, prompts=att, length=first)
        total += Cost.forward(m, rows=2 * prof, length=first, backward=backward, programs=3)
        return total + Cost.bootstrap(replicates=self.n_boot, units=max(att, prof), fits=6, width=first)

    def resolved_method(self, width: int) -> str:
        """The influence profile method for a model of width D."""
        if self.method != "auto":
            return self.method
        return "exact" if width <= EXACT_MAX_WIDTH else "randomized"



__all__ = ["Config", "DTYPES", "MODES", "RANDOM_TINY", "SMOKE", "SMOKE_HELP", "tiny_config"]
