"""The settings the practitioners' experiments share (``lostmid diagnose``, ``lostmid remedies``; the checkpoint
source also ``lostmid compare``), one group each.

    CheckpointSettings(weights="org/model", allow_download=False, dtype="float32")    # --checkpoint.weights ...
    CheckpointSource(weights="org/model", allow_download=False)                       # compare's checkpoint
    ProbeDesign(mode="text", passages=5, lengths=(1024,), examples=40, ...)            # --probe.passages ...

Each experiment's Config nests them as ``checkpoint`` and ``probe`` (flags
``--checkpoint.weights``, ``--probe.passages``; the short names of earlier
releases, ``--weights``, ``--passages``, ..., are the experiments' explicit
alias tables). Each group checks its own fields when built and reads nothing:
the checkpoint is looked up once, in the experiment's resolve step
(:func:`lostmid_jax.probes.checkpoint.look_up_checkpoint`). ``FLAT_FIELDS``
maps the flat field names of config.json files written before the groups to
their dotted paths (read by :func:`lostmid_jax.runs.config.from_dict`).
"""

from __future__ import annotations

import dataclasses
import pathlib

from ..validation import check_bool_like, check_choice, check_int

RANDOM_TINY = "random:tiny-llama"
"""``weights`` of diagnose's and remedies' --smoke: a tiny random Llama written with save_hf, with a word-level
tokenizer."""
RANDOM_TINY_GPT2 = "random:tiny-gpt2"
"""``weights`` of compare's --smoke: a tiny random GPT-2 written with save_hf (no tokenizer)."""
RANDOM_TITLES = {RANDOM_TINY: "tiny random Llama", RANDOM_TINY_GPT2: "tiny random GPT-2"}
MODES = ("text", "tokens")
DTYPES = ("float32", "bfloat16")


@dataclasses.dataclass(frozen=True, kw_only=True)
class CheckpointSource:
    """Where the model comes from (the group of every experiment that reads a checkpoint; ``lostmid compare``'s
    ``checkpoint``).

    Attributes:
      weights: the checkpoint: a local directory (config.json + safetensors, and a tokenizer for the text
        probe) or a Hugging Face hub id in the local cache; "random:tiny-llama" / "random:tiny-gpt2" write a
        tiny random model (the --smoke defaults of diagnose / remedies and of compare; offline).
      allow_download: fetch a hub id that is not in the local cache (config.json and safetensors only).
    """

    weights: str
    allow_download: bool = False

    def __post_init__(self):
        if not isinstance(self.weights, str) or not self.weights:
            raise ValueError(f"weights must be a checkpoint directory or hub id, got {self.weights!r}")
        object.__setattr__(self, "allow_download", check_bool_like("allow_download", self.allow_download))

    @property
    def title(self) -> str:
        """The checkpoint's name in titles (:func:`checkpoint_title`)."""
        return checkpoint_title(self.weights)


@dataclasses.dataclass(frozen=True, kw_only=True)
class CheckpointSettings(CheckpointSource):
    """Where the model comes from and how its weights are held (diagnose's and remedies' ``checkpoint``).

    Attributes:
      weights, allow_download: as :class:`CheckpointSource`.
      dtype: the parameters' and activations' dtype: float32 or bfloat16 (large checkpoints; scores within
        the tolerance docs/diagnose.md states).
    """

    dtype: str = "float32"

    def __post_init__(self):
        super().__post_init__()
        check_choice("dtype", self.dtype, DTYPES)


def checkpoint_title(weights: str) -> str:
    """The checkpoint's name in titles: "tiny random Llama" / "tiny random GPT-2", the directory's name, or the
    hub id."""
    if weights in RANDOM_TITLES:
        return RANDOM_TITLES[weights]
    path = pathlib.Path(weights)
    return path.resolve().name if path.is_dir() else weights


@dataclasses.dataclass(frozen=True, kw_only=True)
class ProbeDesign:
    """The position-controlled retrieval probe: what its prompts hold and what it may measure.

    Attributes:
      mode: "text" (documents in words, the checkpoint's tokenizer) or "tokens" (keys and values as token ids,
        no tokenizer: any model).
      passages: k >= 2 passages per document; the fact sits in passage p = 1..k.
      lengths: the prompt lengths T in tokens (the question included), one test per length (e.g.
        1024,4096,16384).
      examples: E >= 2 examples (facts), each scored with the fact in every passage.
      candidates: C >= 2 answers ranked per prompt (the right one and C - 1 other facts' answers).
      corpus: text mode: a directory of .txt files, one passage per paragraph, as filler (None: built-in).
      facts: text mode: a JSON-lines file of {fact, question, answer} (None: the built-in generator).
      key_tokens: tokens mode: ids per key.
      value_tokens: tokens mode: ids per value (the answer).
      seed: the generator's seed (facts, filler, distractors) and the bootstrap's.
      allow_unknown_tokens: measure prompts, facts and answers the tokenizer maps to its unknown id (e.g. [UNK])
        instead of refusing them; the verdict counts them.
      allow_extrapolation: measure lengths beyond the checkpoint's trained context (max_position_embeddings, or
        the rope_scaling context) instead of refusing them; the tables and the verdict mark them.
    """

    mode: str = "text"
    passages: int = 5
    lengths: tuple[int, ...] = (1024,)
    examples: int = 40
    candidates: int = 5
    corpus: str | None = None
    facts: str | None = None
    key_tokens: int = 2
    value_tokens: int = 1
    seed: int = 0
    allow_unknown_tokens: bool = False
    allow_extrapolation: bool = False

    def __post_init__(self):
        check_choice("mode", self.mode, MODES)
        for name in ("corpus", "facts"):
            if getattr(self, name) is not None and self.mode != "text":
                raise ValueError(f"{name} is used by mode 'text' only, got mode={self.mode!r}")
        for name, low in (("passages", 2), ("examples", 2), ("candidates", 2), ("key_tokens", 1),
                          ("value_tokens", 1), ("seed", 0)):
            check_int(name, getattr(self, name), low)
        for name in ("allow_unknown_tokens", "allow_extrapolation"):
            object.__setattr__(self, name, check_bool_like(name, getattr(self, name)))
        lengths = tuple(self.lengths) if isinstance(self.lengths, (list, tuple)) else (self.lengths,)
        if not lengths or len(set(lengths)) != len(lengths):
            raise ValueError(f"lengths must be one or more distinct prompt lengths >= 8, got {self.lengths!r}")
        object.__setattr__(self, "lengths", tuple(check_int("lengths", t, 8) for t in lengths))


SOURCE_FLAT_FIELDS = {f.name: f"checkpoint.{f.name}" for f in dataclasses.fields(CheckpointSource)}
"""{flat field of compare's config.json files written before the group: its dotted path now}."""
SOURCE_SHORT_FLAGS = {name.replace("_", "-"): path for name, path in SOURCE_FLAT_FIELDS.items()}
"""compare's --weights, --allow-download as aliases: {short name: dotted path}."""
FLAT_FIELDS = {**{f.name: f"checkpoint.{f.name}" for f in dataclasses.fields(CheckpointSettings)},
               **{f.name: f"probe.{f.name}" for f in dataclasses.fields(ProbeDesign)}}
"""{flat field of config.json files written before the groups: its dotted path now}."""
SHORT_FLAGS = {name.replace("_", "-"): path for name, path in FLAT_FIELDS.items()}
"""The flags of earlier releases (--weights, --passages, ...) as aliases: {short name: dotted path}."""

__all__ = ["CheckpointSettings", "CheckpointSource", "DTYPES", "FLAT_FIELDS", "MODES", "ProbeDesign", "RANDOM_TINY",
           "RANDOM_TINY_GPT2", "RANDOM_TITLES", "SHORT_FLAGS", "SOURCE_FLAT_FIELDS", "SOURCE_SHORT_FLAGS",
           "checkpoint_title"]
