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

from ...analysis.step0_measure import CONTENT_LENGTH  # noqa: F401  (the old place of the name)
from ...runs.config import tuples_from_lists
from ...validation import check_choice, check_float, check_int

INPUTS = ("tokens", "gaussian")
METHODS = ("exact", "randomized", "one-pass")

# Per-preset defaults. The default run (``lostmid step0``) covers DEFAULT_PRESETS, sized to finish
# within 20 minutes on 2 CPU cores; --full adds FULL_PRESETS (expected time printed first).
# Qwen2 runs the total pathway only by default: the split doubles the backward passes.
DEFAULT_PLANS = {
    "toy": dict(length=1024, method="exact", probes=16, seeds=8, split=True,
                variants=("native", "nopos", "rope:1e5", "rope:5e5", "rope:1e6")),
    "toy-deep": dict(length=512, method="exact", probes=16, seeds=8, split=True, variants=("native", "nopos")),
    "gpt2-small": dict(length=1024, method="randomized", probes=8, seeds=4, split=False, variants=("native", "nopos")),
    "gpt2-medium": dict(length=1024, method="randomized", probes=8, seeds=1, split=True, variants=("native", "nopos")),
    "qwen2-0.5b": dict(length=2048, method="randomized", probes=8, seeds=2, split=False, variants=("native", "nopos")),
}
DEFAULT_PRESETS = ("toy-deep", "gpt2-small")
FULL_PRESETS = ("qwen2-0.5b",)
# Seconds per unit on 2 CPU cores of each FULL_PRESETS plan (what --full prints before it starts).
FULL_SECONDS_PER_UNIT = {"qwen2-0.5b": 240.0}
SMOKE = {"length": 32, "probes": 4, "seeds": 2, "heat_length": 16, "presets": ("toy",),
         "variants": ("native", "nopos"), "smoke": True}


def default_plan(name: str) -> dict:
    """The plan of preset ``name``: DEFAULT_PLANS, else one sized from its config (exact for width
    <= 256, else 8 randomized probes and the total pathway only; 2 seeds; RoPE / positions on and off;
    L = 1024, or the learned table's length if shorter)."""
    from ...nn import PRESETS

    if name in DEFAULT_PLANS:
        return dict(DEFAULT_PLANS[name])
    cfg = PRESETS[name]
    small = cfg.width <= 256
    length = min(1024, cfg.max_positions) if cfg.position == "learned" else 1024
    return dict(length=length, method="exact" if small else "randomized", probes=8, seeds=2, split=small,
                variants=("native", "nopos"))


def model_config(name: str, variant: str, param_dtype: str = "float32"):
    """The nn.DecoderConfig of preset ``name`` under ``variant``."""
    from ...nn import preset

    return preset(name, param_dtype=param_dtype, **variant_overrides(name, variant))


def variant_overrides(name: str, variant: str) -> dict:
    """DecoderConfig overrides of ``variant`` for preset ``name``."""
    from ...nn import PRESETS

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
    """What to run for one preset (resolved from Config and DEFAULT_PLANS).

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
class Config:
    """Arguments of the Step-0 Jacobian experiment; validated at construction.

    Attributes:
      presets: nn preset names to run, comma-separated (keys of nn.PRESETS).
      full: also run FULL_PRESETS (qwen2-0.5b), after printing the expected time.
      length: L >= 2 positions for every preset; none keeps each preset's plan
        (toy-deep 512, gpt2-small 1024).
      method: "exact", "randomized" or "one-pass" for every preset; none keeps
        each preset's plan (toy exact, the others randomized).
      probes: Gaussian probes of "randomized"; none keeps each preset's plan.
      seeds: seeds 0..S-1 (model init and input); none keeps each preset's plan.
      variants: position-encoding variants (native, nopos, rope, rope:T,
        learned); none keeps each preset's plan.
      input: "tokens" (the model's embedding of uniform random tokens, as a
        real input would be) or "gaussian" (x ~ N(0, 1)^{L x D}).
      param_dtype: parameter and compute dtype name.
      chunk: cotangents per batched backward (None: automatic).
      heat_length: positions used for the attention-probability heatmap
        (min(L, heat_length); all H N L^2 probabilities are captured; the
        causal part of 3 layers x 3 heads is saved in attention.csv).
      band: primacy / late band width of the U statistics.
      split: also measure the value and score pathways (about doubles the
        cost: a second backward per cotangent with the probabilities frozen);
        None keeps each preset's default (DEFAULT_PLANS).
      n_boot: bootstrap replicates of the 95% CIs (lostmid_jax.analysis.agreement).
      smoke: a --smoke run (the verdict says it is too small to test the paper's claims).
      content_prior: compare each (preset, variant) with the Content prior measured from its seed-0
        model (self bonus and off-diagonal score per layer and head, at min(L, 256) positions;
        saved in content_scores.csv) instead of the plain prior of its config (softmax attention only).
    """

    presets: tuple[str, ...] = DEFAULT_PRESETS
    full: bool = False
    length: int | None = None
    method: str | None = None
    probes: int | None = None
    seeds: int | None = None
    variants: tuple[str, ...] | None = None
    input: str = "tokens"
    param_dtype: str = "float32"
    chunk: int | None = None
    heat_length: int = 64
    band: float = 0.1
    split: bool | None = None
    n_boot: int = 2000
    smoke: bool = False
    content_prior: bool = False

    def __post_init__(self):
        from ...nn import PRESETS

        tuples_from_lists(self)
        if not self.presets:
            raise ValueError("presets must not be empty")
        for name in self.presets:
            if name not in PRESETS:
                raise ValueError(f"presets must be among {tuple(PRESETS)}, got {name!r}")
        if self.length is not None and check_int("length", self.length, 1) < 2:
            raise ValueError(f"length must be >= 2, got {self.length}")
        if self.method is not None:
            check_choice("method", self.method, METHODS)
        for field in ("full", "smoke", "content_prior"):
            if not isinstance(getattr(self, field), bool):
                raise ValueError(f"{field} must be True or False, got {getattr(self, field)!r}")
        check_int("n_boot", self.n_boot, 1)
        for field in ("probes", "seeds", "chunk", "heat_length"):
            if getattr(self, field) is not None:
                check_int(field, getattr(self, field), 1)
        if self.variants is not None and not self.variants:
            raise ValueError("variants must not be empty")
        check_choice("input", self.input, INPUTS)
        check_choice("param_dtype", self.param_dtype, ("float16", "bfloat16", "float32", "float64"))
        check_float("band", self.band, 0, 0.5, open_min=True, open_max=True)
        if self.split is not None and not isinstance(self.split, bool):
            raise ValueError(f"split must be True, False or None (each preset's default), got {self.split!r}")
        for plan in self.plans():
            if self.content_prior and PRESETS[plan.preset].attention != "softmax":
                raise ValueError(f"content_prior needs softmax attention (scores to measure); {plan.preset} has "
                                 f"attention={PRESETS[plan.preset].attention!r}")
            for variant in plan.variants:
                cfg = PRESETS[plan.preset]
                overrides = variant_overrides(plan.preset, variant)
                if overrides.get("position", cfg.position) == "learned" and plan.length > cfg.max_positions:
                    raise ValueError(f"length {plan.length} exceeds {plan.preset}'s max_positions={cfg.max_positions} "
                                     f"(learned positions, variant {variant!r})")

    def preset_names(self) -> tuple[str, ...]:
        """The presets that run: ``presets``, then FULL_PRESETS with ``full``."""
        extra = tuple(n for n in FULL_PRESETS if n not in self.presets) if self.full else ()
        return tuple(self.presets) + extra

    def plans(self) -> list[PresetPlan]:
        """One resolved PresetPlan per preset."""
        out = []
        for name in self.preset_names():
            fields = default_plan(name)
            for key in ("length", "method", "probes", "seeds", "variants", "split"):
                if getattr(self, key) is not None:
                    fields[key] = getattr(self, key)
            out.append(PresetPlan(preset=name, **fields))
        return out
