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

from ...probes.checkpoint import RANDOM_TINY, tiny_config
from ...probes.context import check_context
from ...probes.cost import Cost
from ...probes.settings import DTYPES, FLAT_FIELDS, MODES, CheckpointSettings, ProbeDesign
from ...runs.config import tuples_from_lists
from ...validation import check_choice, check_float, check_int

METHODS = ("auto", "exact", "randomized")
EXACT_MAX_WIDTH = 256  # method "auto": exact influence profiles up to this width, randomized above
SMOKE = {"checkpoint.weights": RANDOM_TINY, "probe.passages": 3, "probe.lengths": (32, 48), "probe.examples": 6,
         "probe.candidates": 3, "attention_examples": 3, "profile_examples": 2, "heat_bins": 16, "n_boot": 200,
         "batch": 6}
SMOKE_HELP = "a tiny random Llama with a word-level tokenizer (written here, offline), 6 examples, T = 32 and 48"
TINY_GAIN = 5.0  # its weight matrices are scaled by this (std 0.1), so its attention is not uniform


@dataclasses.dataclass(frozen=True, kw_only=True)
class Config:
    """Arguments of the diagnosis of a trained model.

    Attributes:
      checkpoint: the model (probes.settings.CheckpointSettings: weights, allow_download, dtype).
      probe: the position test's design (probes.settings.ProbeDesign: mode, passages, lengths, examples, ...);
        attention and influence profiles are measured at its first length.
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
    """

    RENAMED_FIELDS = FLAT_FIELDS  # config.json of runs before the groups: flat "weights", "passages", ...

    checkpoint: CheckpointSettings
    probe: ProbeDesign = ProbeDesign()
    attention_examples: int = 8
    layers: tuple[int, ...] = ()
    heat_bins: int = 64
    profile_examples: int = 4
    method: str = "auto"
    probes: int = 16
    band: float = 0.1
    batch: int = 8
    n_boot: int = 2000

    def __post_init__(self):
        tuples_from_lists(self)
        for name, group in (("checkpoint", CheckpointSettings), ("probe", ProbeDesign)):
            if not isinstance(getattr(self, name), group):
                raise ValueError(f"{name} must be a {group.__name__}, got {getattr(self, name)!r}")
        check_choice("method", self.method, METHODS)
        for name, low in (("attention_examples", 1), ("heat_bins", 1), ("profile_examples", 2), ("probes", 1),
                          ("batch", 1), ("n_boot", 100)):
            check_int(name, getattr(self, name), low)
        check_float("band", self.band, 0, 0.5, open_min=True, open_max=True)
        object.__setattr__(self, "layers", tuple(self.layers))

    @property
    def title(self) -> str:
        """The checkpoint's name in titles."""
        return self.checkpoint.title

    def check_checkpoint(self, checkpoint) -> None:
        """The refusals that need the checkpoint (``probes.checkpoint.look_up_checkpoint``'s value, text mode's
        checks already done there): layers within its depth, the lengths within its trained context, the run's
        cost within the resource limits (ValueError, one line naming the field)."""
        model_cfg = checkpoint.model_config
        layers = self.layers
        if any(isinstance(l, bool) or not isinstance(l, int) or not 1 <= l <= model_cfg.depth for l in layers):
            raise ValueError(f"layers must be 1-based layer numbers in [1, {model_cfg.depth}], got {layers!r}")
        probe = self.probe
        answer_ids = checkpoint.answer_ids or probe.value_tokens
        check_context(model_cfg, {t: t + answer_ids - 1 for t in probe.lengths}, allow=probe.allow_extrapolation)
        self.cost(model_cfg, answer_ids).check(f"diagnose: lengths={','.join(map(str, probe.lengths))}, examples="
                                               f"{probe.examples}, batch={self.batch}, n_boot={self.n_boot}")

    def cost(self, model_cfg, answer_ids: int = 1) -> Cost:
        """The run's estimated CPU seconds and peak memory (probes.cost) for the checkpoint ``model_cfg``."""
        import dataclasses as dc

        m = dc.replace(model_cfg, param_dtype=self.checkpoint.dtype, dtype=None)
        e, k, first = self.probe.examples, self.probe.passages, self.probe.lengths[0]
        rows = e * k * (1 if answer_ids == 1 else self.probe.candidates)
        att, prof = min(self.attention_examples, e), min(self.profile_examples, e)
        backward = m.width if self.resolved_method(m.width) == "exact" else self.probes
        total = Cost.weights(m, copies=2)
        for t in self.probe.lengths:
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



__all__ = ["CheckpointSettings", "Config", "DTYPES", "MODES", "ProbeDesign", "RANDOM_TINY", "SMOKE", "SMOKE_HELP",
           "tiny_config"]
