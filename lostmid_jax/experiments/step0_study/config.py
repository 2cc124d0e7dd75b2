"""Arguments of the Step-0 study: presets, seeds, the convergence grid and the width-noise grid.

Per-preset defaults (:data:`PLANS`) are sized for 2 CPU cores; the models and
inputs of seed s are those of ``lostmid step0`` (same init key, same input key).
"""

from __future__ import annotations

import dataclasses

from ...validation import check_choice, check_int
from ...runs.config import tuples_from_lists
from .. import influence_settings, preset_settings
from ..influence_settings import INPUTS, InfluenceSettings  # noqa: F401  (INPUTS: the old place of the name)
from ..preset_settings import PresetSettings

METHODS = ("exact", "randomized")

# preset -> (length, method, seeds)
PLANS = {
    "toy": (256, "exact", 16),
    "toy-deep": (512, "exact", 32),
    "gpt2-small": (1024, "randomized", 4),
    "gpt2-medium": (1024, "randomized", 2),
    "qwen2-0.5b": (2048, "randomized", 2),
}
SMOKE = {"models.presets": ("toy",), "influence.length": 16, "influence.seeds": 4, "gain_probes": 2, "attn_length": 16,
         "seed_counts": (1, 2), "bins": (8, 4), "noise_preset": "toy", "noise_widths": (16, 32),
         "noise_length": 16, "noise_seeds": 4, "n_boot": 200}


@dataclasses.dataclass(frozen=True, kw_only=True)
class PresetPlan:
    """What runs for one preset: L positions, the profile method, seeds 0..seeds-1."""

    preset: str
    length: int
    method: str
    seeds: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class Config:
    """Arguments of the Step-0 study; validated at construction.

    Attributes:
      models: the presets and their dtype (:class:`PresetSettings`).
      models.presets: nn preset names (causal softmax pre-norm stacks: toy, toy-deep, gpt2-*, qwen2-0.5b).
      models.param_dtype: parameter and compute dtype name: float32 or float64.
      influence: how the profiles are measured (:class:`InfluenceSettings`).
      influence.length: L >= 8 for every preset; none keeps each preset's default (PLANS).
      influence.method: "exact" or "randomized" for every preset; none keeps each preset's default.
      influence.seeds: S >= 3 seeds 0..S-1 for every preset (held-out scoring needs two halves); none keeps
        each preset's default.
      influence.probes: Gaussian probes of the randomized profile.
      influence.input: "tokens" (embeddings of uniform random tokens) or "gaussian".
      gain_probes: probes per layer of the branch gains g_l^2 (analysis.branch_gains).
      attn_length: positions whose attention probabilities are captured for the uniformity
        statistics (min(L, attn_length)).
      seed_counts: numbers of held-out seeds of the convergence study (those <= the held-out half run).
      bins: equal-x binnings compared besides the raw positions (those < L run).
      noise_preset: the preset whose width is varied in the noise grid.
      noise_widths: widths D of the noise grid (mlp width 2 D); empty skips the grid.
      noise_length: L of the noise grid.
      noise_seeds: seeds per width of the noise grid (>= 4).
      n_boot: bootstrap replicates of every CI.
      split_seed: seed of the random fit / score halves (stats.heldout.split_halves).
      mlp: False runs every preset and the noise grid without MLPs (mlp="none"): the attention
        path alone, so k_{l,i} = 0 and the position-wise variant is the random-matrix one.
    """

    RENAMED_FIELDS = {**preset_settings.OLD_KEYS, **influence_settings.OLD_KEYS}  # flat config.json of earlier runs

    models: PresetSettings = PresetSettings(presets=("toy-deep", "gpt2-small"))
    influence: InfluenceSettings = InfluenceSettings(probes=16)
    gain_probes: int = 4
    attn_length: int = 256
    seed_counts: tuple[int, ...] = (1, 2, 4, 8, 16)
    bins: tuple[int, ...] = (256, 64, 16)
    noise_preset: str = "toy-deep"
    noise_widths: tuple[int, ...] = (32, 64, 128, 256)
    noise_length: int = 64
    noise_seeds: int = 16
    n_boot: int = 2000
    split_seed: int = 0
    mlp: bool = True

    def __post_init__(self):
        from ...nn import PRESETS

        tuples_from_lists(self)
        if not isinstance(self.models, PresetSettings) or not isinstance(self.influence, InfluenceSettings):
            raise ValueError("models and influence must be a PresetSettings and an InfluenceSettings "
                             "(or dicts of their fields)")
        for field, name in [("models.presets", n) for n in self.models.presets] + [("noise_preset", self.noise_preset)]:
            check_choice(field, name, tuple(PLANS))
            cfg = PRESETS[name]
            if cfg.mask != "causal" or cfg.attention != "softmax" or not cfg.pre_norm or cfg.position == "alibi":
                raise ValueError(f"{field}: {name!r} is not a causal softmax pre-norm stack without ALiBi")
        self.influence.require(methods=METHODS, minimums={"length": 8, "seeds": 3}, given=("probes",))
        for field in ("gain_probes", "attn_length", "noise_length"):
            check_int(field, getattr(self, field), 1)
        check_int("noise_seeds", self.noise_seeds, 4)
        check_int("n_boot", self.n_boot, 1)
        check_int("split_seed", self.split_seed, 0)
        if not isinstance(self.mlp, bool):
            raise ValueError(f"mlp must be True or False, got {self.mlp!r}")
        check_choice("models.param_dtype", self.models.param_dtype, ("float32", "float64"))
        if not self.seed_counts:
            raise ValueError("seed_counts must not be empty")
        for n in self.seed_counts:
            check_int("seed_counts", n, 1)
        for b in self.bins:
            check_int("bins", b, 1)
        for w in self.noise_widths:
            check_int("noise_widths", w, 4)
            if w % PRESETS[self.noise_preset].heads:
                raise ValueError(f"noise_widths: {w} is not a multiple of {self.noise_preset}'s "
                                 f"{PRESETS[self.noise_preset].heads} heads")
        for plan in self.plans():
            cfg = PRESETS[plan.preset]
            if cfg.position == "learned" and plan.length > cfg.max_positions:
                raise ValueError(f"length {plan.length} exceeds {plan.preset}'s max_positions={cfg.max_positions}")

    def plans(self) -> list[PresetPlan]:
        """One resolved PresetPlan per preset."""
        out = []
        given = self.influence
        for name in self.models.presets:
            length, method, seeds = PLANS[name]
            out.append(PresetPlan(preset=name, length=given.length or length, method=given.method or method,
                                  seeds=given.seeds or seeds))
        return out

    def model_overrides(self) -> dict:
        """DecoderConfig overrides of every preset: {"mlp": "none"} without MLPs, else none."""
        return {} if self.mlp else {"mlp": "none"}

    def noise_overrides(self, width: int) -> dict:
        """DecoderConfig overrides of the noise grid at ``width`` (MLP width 2 D)."""
        return {"width": int(width), "mlp_width": 2 * int(width), **self.model_overrides()}
