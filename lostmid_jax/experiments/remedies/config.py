"""What `lostmid remedies` runs: the checkpoint, the probe design, the remedies and the measurements' sizes.

A Config checks its own fields when it is built (each remedy spec, the
passage count, ...; nothing read, nothing looked up). What needs the
checkpoint is checked once it is resolved (:meth:`Config.check_checkpoint`,
in the experiment's resolve step), before any model is loaded and before the
run directory is claimed: its config.json, a tokenizer in text mode and every
string it cannot write (the marker included; probes.unknown), answers that
tokenize alike, the prompt length (markers and answer included) against the
trained context (probes.context), and the run's work and memory against the
resource limits (probes.cost, ``--limits``).

The prompt length is ``probe.lengths`` (``--probe.lengths`` or ``--lengths``,
one value), the spelling ``lostmid diagnose`` uses; config.json files of
earlier runs that hold ``length`` (or the flat fields before the groups)
still read (RENAMED_FIELDS), and ``--length`` is still accepted with a
one-line hint.
"""

from __future__ import annotations

import dataclasses

from ...probes.checkpoint import RANDOM_TINY, WORD_JOINER, encode_marker, tiny_config
from ...probes.context import check_context
from ...probes.cost import Cost
from ...probes.settings import DTYPES, FLAT_FIELDS, MODES, CheckpointSettings, ProbeDesign
from ...runs.config import tuples_from_lists
from ...validation import check_float, check_int

DEFAULT_REMEDIES = ("rope_base:4", "rope_scaling:linear:2", "rope_scaling:dynamic:2", "rope_scaling:yarn:2",
                    "markers:0.25/0.5/0.75", "reorder:first", "reorder:last", "sinks:4:256")
SMOKE = {"checkpoint.weights": RANDOM_TINY, "probe.passages": 3, "probe.lengths": (48,), "probe.examples": 6,
         "probe.candidates": 3, "attention_examples": 2, "influence_examples": 2, "n_boot": 200, "batch": 6,
         "remedies": ("rope_base:4", "rope_scaling:yarn:4:16", "rope_scaling:dynamic:2", "markers:0.5", "reorder:last",
                      "sinks:2:16")}
SMOKE_HELP = ("a tiny random Llama with a word-level tokenizer (written here, offline), 6 examples, T = 48, 6 remedies "
              "(rope_scaling:dynamic:2 a no-op at this length)")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Config:
    """Arguments of the remedies test.

    Attributes:
      checkpoint: the model (probes.settings.CheckpointSettings: weights, allow_download, dtype).
      probe: the probe's design (probes.settings.ProbeDesign: mode, passages, lengths, examples, ...); lengths
        holds T, the prompt length, one value (the flag is spelled as diagnose's; run once per length).
      remedies: remedy specs (lostmid_jax.probes.remedies): rope_base:F, rope_scaling:KIND:F[:P] (KIND linear,
        dynamic or yarn), markers:R1/R2/..., reorder:first, reorder:last, sinks:S[:W].
      marker: the marker of markers remedies: a token id (digits) or a string encoded with the tokenizer
        (default U+2060, the zero-width word joiner practitioners use).
      context: the original context P of rope_scaling remedies that name none (None: max_positions).
      low: tokens mode: the smallest id drawn (keep special ids below it).
      attention_examples: A >= 1 examples whose attention received is measured (fact in the middle passage).
      influence_examples: examples whose exact Jacobian influence profile is measured (0: none; D reverse
        passes each, so keep it small for wide models).
      theory_a: the attention strength a of the Step-0 theory row that predicts each remedy's effect.
      batch: prompts per scoring forward pass.
      n_boot: bootstrap replicates of every interval.
    """

    RENAMED_FIELDS = {**FLAT_FIELDS, "length": "probe.lengths"}  # config.json of earlier runs

    checkpoint: CheckpointSettings
    probe: ProbeDesign = ProbeDesign()
    remedies: tuple[str, ...] = DEFAULT_REMEDIES
    marker: str = WORD_JOINER
    context: int | None = None
    low: int = 2
    attention_examples: int = 8
    influence_examples: int = 0
    theory_a: float = 0.5
    batch: int = 8
    n_boot: int = 2000

    def __post_init__(self):
        from ...probes.remedies import parse_remedy

        tuples_from_lists(self)
        for name, group in (("checkpoint", CheckpointSettings), ("probe", ProbeDesign)):
            if not isinstance(getattr(self, name), group):
                raise ValueError(f"{name} must be a {group.__name__}, got {getattr(self, name)!r}")
        if len(self.probe.lengths) != 1:
            raise ValueError(f"lengths: remedies measures one prompt length T (run it once per length), got "
                             f"{self.probe.lengths!r}")
        if not self.remedies:
            raise ValueError("remedies must name at least one remedy (e.g. rope_base:4)")
        labels = [parse_remedy(r).label for r in self.remedies]
        if len(set(labels)) != len(labels):
            raise ValueError(f"remedies must be distinct, got {self.remedies!r}")
        for name, low in (("low", 0), ("attention_examples", 1), ("influence_examples", 0), ("batch", 1),
                          ("n_boot", 100)):
            check_int(name, getattr(self, name), low)
        if self.context is not None:
            check_int("context", self.context, 1)
        check_float("theory_a", self.theory_a, 0, 1)
        if not isinstance(self.marker, str) or not self.marker:
            raise ValueError(f"marker must be a token id or a non-empty string, got {self.marker!r}")
        if self.probe.mode == "tokens" and not self.marker.isdigit() and self._markers():
            raise ValueError(f"marker must be a token id (digits) in mode 'tokens', got {self.marker!r}")

    @property
    def title(self) -> str:
        """The checkpoint's name in titles."""
        return self.checkpoint.title

    @property
    def markers(self) -> str | None:
        """The marker when a markers remedy uses it, else None (nothing to encode or check)."""
        return self.marker if self._markers() else None

    def check_checkpoint(self, checkpoint) -> None:
        """The refusals that need the checkpoint (``probes.checkpoint.look_up_checkpoint``'s value, text mode's
        checks already done there): a marker id within its vocabulary, the length (markers and answer included)
        within its trained context, the run's cost within the resource limits (ValueError naming the field)."""
        model_cfg = checkpoint.model_config
        if self.marker.isdigit() and int(self.marker) >= model_cfg.vocab_size:
            raise ValueError(f"marker: token id {self.marker} is outside the vocabulary [0, {model_cfg.vocab_size})")
        text = checkpoint.text
        answer_ids = text.answer_ids if text else self.probe.value_tokens
        marker_ids = len(self.marker_ids(text.tokenizer)) if text and self._markers() else 1
        check_context(model_cfg, {self.length: self.positions_needed(answer_ids, marker_ids)},
                      allow=self.probe.allow_extrapolation)
        self.cost(model_cfg, answer_ids, marker_ids).check(
            f"remedies: lengths={self.length}, examples={self.probe.examples}, batch={self.batch}, "
            f"n_boot={self.n_boot}, {len(self.remedies)} remedies")

    @property
    def length(self) -> int:
        """T, the one prompt length of ``probe.lengths``."""
        return self.probe.lengths[0]

    def marker_ids(self, tok) -> list[int]:
        """The marker's ids (:func:`probes.checkpoint.encode_marker`)."""
        return encode_marker(self.marker, tok)

    def _markers(self) -> int:
        from ...probes.remedies import parse_remedy

        return max([len(parse_remedy(r).at) for r in self.remedies if r.startswith("markers")] or [0])

    def positions_needed(self, answer_ids: int | None = None, marker_ids: int = 1) -> int:
        """The positions the longest scoring forward uses: T, the markers (``marker_ids`` each) and the
        answer's ids beyond the first (``answer_ids``; None: tokens mode's value_tokens, else 1)."""
        if answer_ids is None:
            answer_ids = self.probe.value_tokens if self.probe.mode == "tokens" else 1
        return self.length + self._markers() * marker_ids + answer_ids - 1

    def cost(self, model_cfg, answer_ids: int = 1, marker_ids: int = 1) -> Cost:
        """The run's estimated CPU seconds and peak memory (probes.cost): the unmodified model and each remedy,
        each scored, its attention captured and (``influence_examples``) its exact influence profile; a
        reordering reuses the unmodified model's compiled programs (same model, same T)."""
        import dataclasses as dc

        m = dc.replace(model_cfg, param_dtype=self.checkpoint.dtype, dtype=None)
        e, k = self.probe.examples, self.probe.passages
        rows = e * k * (1 if answer_ids == 1 else self.probe.candidates)
        t = self.positions_needed(answer_ids, marker_ids)
        att, inf = min(self.attention_examples, e), min(self.influence_examples, e)

        def one(compiles: int) -> Cost:
            out = (Cost.forward(m, rows=rows, length=t, batch=self.batch, answer_ids=answer_ids, programs=compiles)
                   + Cost.attention(m, prompts=att, length=t, programs=2 * compiles)
                   + Cost.paired(replicates=self.n_boot, units=e, fits=8)
                   + Cost.bootstrap(replicates=200, units=att, width=t))
            return out + Cost.forward(m, rows=inf, length=t, backward=m.width, programs=compiles) if inf else out

        reorders = sum(r.startswith("reorder") for r in self.remedies)
        return Cost.weights(m) + one(1).times(1 + len(self.remedies) - reorders) + one(0).times(reorders)


__all__ = ["CheckpointSettings", "Config", "DEFAULT_REMEDIES", "DTYPES", "MODES", "ProbeDesign", "RANDOM_TINY", "SMOKE",
           "SMOKE_HELP", "tiny_config"]
