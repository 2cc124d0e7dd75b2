"""Arguments of the Step-0 experiment: which presets, variants, seeds and estimator.

A *variant* changes the position encoding of a preset:

    native      the preset as published (toy, Qwen2: RoPE; GPT-2: learned)
    nopos       position="none" (RoPE off / learned table off)
    rope        RoPE at the preset's own base (1e4 for presets without RoPE)
    rope:T      RoPE with base theta = T (the RoPE base sweep)
    learned     a learned absolute table (std init_std, like GPT-2)

With one seed the same init key serves every variant, so for RoPE presets
"native", "nopos" and "rope:T" share every weight (RoPE has no parameters):
the on/off comparison is paired.
"""

from __future__ import annotations

import dataclasses

from ..nn import PRESETS
from . import _validate

INPUTS = ("tokens", "gaussian")

# Per-preset defaults sized for 2 CPU cores (see the sim's docstring for times).
# Qwen2 runs the total pathway only by default: the split doubles the backward passes.
DEFAULT_PLANS = {
    "toy": dict(length=1024, method="exact", probes=16, seeds=8, split=True,
                variants=("native", "nopos", "rope:1e5", "rope:5e5", "rope:1e6")),
    "gpt2-small": dict(length=1024, method="randomized", probes=16, seeds=2, split=True, variants=("native", "nopos")),
    "gpt2-medium": dict(length=1024, method="randomized", probes=8, seeds=1, split=True, variants=("native", "nopos")),
    "qwen2-0.5b": dict(length=2048, method="randomized", probes=8, seeds=1, split=False, variants=("native", "nopos")),
}
SMOKE = dict(length=48, probes=4, seeds=2, heat_length=48, variants=("native", "nopos"))


def variant_overrides(name: str, variant: str) -> dict:
    """DecoderConfig overrides of ``variant`` for preset ``name``."""
    base = PRESETS[name]
    if variant == "native":
        return {}
    if variant == "nopos":
        return {"position": "none"}
    if variant == "learned":
        return {"position": "learned"}
    if variant == "rope":
        return {"position": "rope", "rope_theta": base.rope_theta if base.position == "rope" else 1e4}
    if variant.startswith("rope:"):
        try:
            theta = float(variant[5:])
        except ValueError:
            theta = -1.0
        if not theta > 0:
            raise ValueError(f"variants: 'rope:T' needs a base T > 0, got {variant!r}")
        return {"position": "rope", "rope_theta": theta}
    raise ValueError(f"variants must be native, nopos, rope, rope:T or learned, got {variant!r}")


@dataclasses.dataclass(frozen=True, kw_only=True)
class PresetPlan:
    """What to run for one preset (resolved from Step0Config and DEFAULT_PLANS).

    Attributes:
      preset: nn preset name.
      length: L positions; the output row is the last one.
      method: "exact", "randomized" or "one-pass" (influence_profile).
      probes: Gaussian probes for "randomized".
      seeds: seeds 0..seeds-1 (model init and input).
      variants: position-encoding variants (module docstring).
      split: also measure the value and score pathways.
    """

    preset: str
    length: int
    method: str
    probes: int
    seeds: int
    variants: tuple[str, ...]
    split: bool = True

    def units(self) -> list[tuple[str, str, int]]:
        """(preset, variant, seed) for every unit of work, variant-major."""
        return [(self.preset, v, s) for v in self.variants for s in range(self.seeds)]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Step0Config:
    """Arguments of the Step-0 Jacobian experiment; validated at construction.

    Attributes:
      presets: nn preset names to run.
      length, method, probes, seeds, variants: override every selected
        preset's DEFAULT_PLANS entry when not None.
      input: "tokens" (the model's embedding of uniform random tokens, as a
        real input would be) or "gaussian" (x ~ N(0, 1)^{L x D}).
      param_dtype: parameter and compute dtype name.
      chunk: cotangents per batched backward (None: automatic).
      heat_length: positions used for the attention-probability heatmap
        (min(L, heat_length); all H N L^2 probabilities are captured).
      band: primacy / late band width of the U statistics.
      split: also measure the value and score pathways (about doubles the
        cost: a second backward per cotangent with the probabilities frozen);
        None keeps each preset's default (DEFAULT_PLANS).
    """

    presets: tuple[str, ...] = tuple(DEFAULT_PLANS)
    length: int | None = None
    method: str | None = None
    probes: int | None = None
    seeds: int | None = None
    variants: tuple[str, ...] | None = None
    input: str = "tokens"
    param_dtype: str = "float32"
    chunk: int | None = None
    heat_length: int = 256
    band: float = 0.1
    split: bool | None = None

    def __post_init__(self):
        if not self.presets:
            raise ValueError("presets must not be empty")
        for name in self.presets:
            if name not in PRESETS:
                raise ValueError(f"presets must be among {tuple(PRESETS)}, got {name!r}")
        if self.length is not None and _validate.check_positive_int("length", self.length) < 2:
            raise ValueError(f"length must be >= 2, got {self.length}")
        if self.method is not None and _validate.check_method(self.method) == "jacrev":
            raise ValueError("method must be exact, randomized or one-pass for the Step-0 run")
        for field in ("probes", "seeds", "chunk", "heat_length"):
            if getattr(self, field) is not None:
                _validate.check_positive_int(field, getattr(self, field))
        if self.variants is not None and not self.variants:
            raise ValueError("variants must not be empty")
        if self.input not in INPUTS:
            raise ValueError(f"input must be one of {INPUTS}, got {self.input!r}")
        if not (isinstance(self.band, (int, float)) and 0 < self.band < 0.5):
            raise ValueError(f"band must be in (0, 0.5), got {self.band!r}")
        for plan in self.plans():
            for variant in plan.variants:
                cfg = PRESETS[plan.preset]
                overrides = variant_overrides(plan.preset, variant)
                if overrides.get("position", cfg.position) == "learned" and plan.length > cfg.max_positions:
                    raise ValueError(f"length {plan.length} exceeds {plan.preset}'s max_positions={cfg.max_positions} "
                                     f"(learned positions, variant {variant!r})")

    def plans(self) -> list[PresetPlan]:
        """One resolved PresetPlan per preset."""
        out = []
        for name in self.presets:
            fields = dict(DEFAULT_PLANS[name])
            for key in ("length", "method", "probes", "seeds", "variants", "split"):
                if getattr(self, key) is not None:
                    fields[key] = getattr(self, key)
            out.append(PresetPlan(preset=name, **fields))
        return out
