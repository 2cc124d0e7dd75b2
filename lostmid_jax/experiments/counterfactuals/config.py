"""What the counterfactual sweep runs: the priors (one of each mask, the decoder families, extras) and Config."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ...runs.config import tuples_from_lists
from ...validation import check_float, check_int

FAMILIES = {
    "Llama 3 (causal, RoPE)": "causal",
    "Qwen3 (causal, RoPE)": "causal",
    "Mistral 7B (window 4096)": "window:4096",
    "BLOOM-560m (ALiBi, 16 heads)": "alibi:16",
    "MPT-7B (ALiBi, 32 heads)": "alibi:32",
    "BLOOM-176B (ALiBi, 112 heads)": "alibi:112",
}
"""Decoder family -> the spec of its Step-0 prior (what ``analysis.prior_for`` gives its config)."""

EXTRA_PRIORS = ("alibi:112:geometric", "content:diag=2.0")
"""Default rows beside the masks and the families: the geometric ALiBi slopes (to compare with the
paper's at 112 heads) and a causal prior with a self bonus of 2 on the logits."""


def default_priors(length: int) -> tuple[str, ...]:
    """One of each mask (:func:`lostmid_jax.theory.default_priors`), the family priors, and :data:`EXTRA_PRIORS`."""
    from ...masks.text import default_priors as mask_priors

    specs = list(mask_priors(length))
    for spec in (*FAMILIES.values(), *EXTRA_PRIORS):
        if spec not in specs:
            specs.append(spec)
    return tuple(specs)


def families_of(spec: str) -> list[str]:
    """The :data:`FAMILIES` whose prior is ``spec``."""
    return [name for name, family_spec in FAMILIES.items() if family_spec == spec]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Config:
    """Arguments of the counterfactual sweep; validated at construction.

    Attributes:
      length: L >= 2 positions.
      depths: the H values, each >= 1.
      alpha: a in [0, 1] of the constant schedule, or a0 of the power law.
      power_b: None for constant a; else b >= 0 of a_l = alpha (l + 1)^-b.
      custom: a per-layer schedule used instead of alpha / power_b; depth H
        uses its first H entries, so it needs at least max(depths).
      priors: prior specs (causal, bidirectional, window:W, chunks:S or chunks:A+B+.., prefix:N,
        sinks:S[:W], alibi:N[:geometric | :M1/M2/..], content[:MASK]:K=V:..;
        :mod:`lostmid_jax.masks.text`) or prior objects, stored as specs; none means
        :func:`default_priors` (one of each mask sized L/8 or L/4, the family priors, the extra rows).
      profile_depth: the H of the profile figure and the verdict; None means
        max(depths). Added to the depths if missing.
      band: width in x of the primacy and late bands, in (0, 0.5).
      dead_below: density threshold of the dead zone, in (0, 1): a position
        j < L is dead when L w_j < dead_below.
    """

    length: int = 2048
    depths: tuple[int, ...] = (1, 2, 4, 8, 12, 16, 24)
    alpha: float = 0.5
    power_b: float | None = None
    custom: tuple[float, ...] | None = None
    priors: tuple | None = None
    profile_depth: int | None = None
    band: float = 0.1
    dead_below: float = 1e-2

    def __post_init__(self):
        from ...theory import check_band, parse_prior, power_law_schedule, prior_spec
        tuples_from_lists(self)
        length = check_int("length", self.length, 1)
        if length < 2:
            raise ValueError(f"length must be >= 2 (a middle needs positions besides the last), got {length}")
        depths = tuple(self.depths) if isinstance(self.depths, Sequence) else ()
        if not depths:
            raise ValueError(f"depths must be a non-empty sequence of integers >= 1, got {self.depths!r}")
        for h in depths:
            check_int("depths", h, 1)
        profile = max(depths) if self.profile_depth is None else check_int("profile_depth", self.profile_depth, 1)
        check_float("alpha", self.alpha, 0, 1)
        if self.power_b is not None:
            try:
                power_law_schedule(1, self.alpha, self.power_b)  # validates b
            except ValueError as err:
                raise ValueError(f"power_b: {err}") from None
        if self.custom is not None:
            for i, a in enumerate(self.custom):
                check_float(f"custom[{i}]", a, 0, 1)
            if len(self.custom) < max(*depths, profile):
                raise ValueError(f"custom has {len(self.custom)} entries; it needs max(depths) = {max(*depths, profile)}")
            object.__setattr__(self, "custom", tuple(self.custom))
        specs = default_priors(length) if self.priors is None else tuple(
            p if isinstance(p, str) else prior_spec(p) for p in self.priors)
        if not specs:
            raise ValueError("priors must not be empty")
        try:
            objects = [parse_prior(s, length) for s in specs]  # validates for L
            specs = tuple(prior_spec(p) for p in objects)
        except ValueError as err:
            raise ValueError(f"priors: {err}") from None
        if len(set(specs)) != len(specs):
            raise ValueError(f"priors must be distinct, got {specs}")
        object.__setattr__(self, "band", check_band(self.band))
        check_float("dead_below", self.dead_below, 0, 1, open_min=True, open_max=True)
        from ...resources import ROW_OPERATIONS, check_operations

        heads = sum(getattr(p, "n_heads", getattr(p, "heads", 1)) for p in objects)  # ALiBi, Content: per head
        work = heads * sum(100.0 * h * length for h in set(depths) | {profile})  # ~100 ns per head and H L entry
        rows = len(objects) * len(set(depths) | {profile})  # ~1 ms of Python per (prior, depth) row
        check_operations(f"length={length} x depths (max {max(*depths, profile)}) x {len(objects)} priors: {rows} rows",
                         work + rows * ROW_OPERATIONS)
        object.__setattr__(self, "depths", tuple(sorted(set(depths) | {profile})))
        object.__setattr__(self, "profile_depth", profile)
        object.__setattr__(self, "priors", specs)

    def schedule(self, depth: int):
        """alpha for depth H: a number (constant) or a tuple of H per-layer values."""
        from ...theory import power_law_schedule

        if self.custom is not None:
            return self.custom[:depth]
        if self.power_b is not None:
            return power_law_schedule(depth, self.alpha, self.power_b)
        return self.alpha

    @property
    def schedule_label(self) -> str:
        if self.custom is not None:
            return "custom a_l"
        if self.power_b is not None:
            return f"a_l = {self.alpha:g} (l+1)^-{self.power_b:g}"
        return f"a={self.alpha:g}"

    def prior_objects(self) -> tuple:
        """The priors as objects, in order."""
        from ...theory import parse_prior

        return tuple(parse_prior(s, self.length) for s in self.priors)


SMOKE = {"length": 128, "depths": (1, 4, 16)}
SMOKE_HELP = "L=128, H in 1,4,16"
