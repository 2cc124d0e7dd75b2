"""The Step-0 measurement settings shared by step0, step0-study and compare: one config group.

An experiment nests :class:`InfluenceSettings` as its field ``influence``, so its flags are
``--influence.length``, ``--influence.method``, ... (the short ``--length``, ``--method``, ... are
aliases in each experiment's CLI_ALIASES). The group checks what holds everywhere; an experiment
narrows it with :meth:`InfluenceSettings.require` (its own methods, larger minimums, no None).
The profile measured is n_j = ||d y_L / d x_j||_F, j = 1..L (lostmid_jax.analysis.influence_profile).
"""

from __future__ import annotations

import dataclasses

from ..validation import check_choice, check_int

FIELD = "influence"  # the field name every experiment nests the group under (named in error messages)
METHODS = ("auto", "exact", "randomized", "one-pass")
INPUTS = ("tokens", "gaussian")
# config.json keys of runs written before the group existed -> their dotted path (runs.config.from_dict)
OLD_KEYS = {name: f"{FIELD}.{name}" for name in ("length", "method", "probes", "seeds", "input", "chunk")}
# the short flags listed in --help (an experiment's CLI_ALIASES): --length for --influence.length, ...
ALIASES = dict(OLD_KEYS)


@dataclasses.dataclass(frozen=True, kw_only=True)
class InfluenceSettings:
    """How the influence profiles are measured; validated at construction.

    Attributes:
      length: L >= 2 positions; none keeps each preset's default length.
      method: the estimator of the profile: "exact" (D reverse passes), "randomized" (``probes`` Gaussian
        cotangents), "one-pass" or "auto" (exact for small widths); none keeps each preset's default.
      probes: Gaussian probes of "randomized"; none keeps each preset's default.
      seeds: seeds 0..S-1 (model init and input); none keeps each preset's default.
      input: "tokens" (the model's embedding of uniform random tokens, as a real input would be)
        or "gaussian" (x ~ N(0, s^2)^{L x D}).
      chunk: cotangents per batched backward (none: automatic).
    """

    length: int | None = None
    method: str | None = None
    probes: int | None = None
    seeds: int | None = None
    input: str = "tokens"
    chunk: int | None = None

    def __post_init__(self):
        if self.length is not None and check_int(f"{FIELD}.length", self.length, 1) < 2:
            raise ValueError(f"{FIELD}.length must be >= 2, got {self.length}")
        if self.method is not None:
            check_choice(f"{FIELD}.method", self.method, METHODS)
        for name in ("probes", "seeds", "chunk"):
            if getattr(self, name) is not None:
                check_int(f"{FIELD}.{name}", getattr(self, name), 1)
        check_choice(f"{FIELD}.input", self.input, INPUTS)

    def require(self, *, methods: tuple[str, ...], minimums: dict[str, int] | None = None,
                given: tuple[str, ...] = ()) -> None:
        """An experiment's narrower rules: ``method`` among ``methods``, {field: minimum} of ``minimums``
        (where not None), and no None in the ``given`` fields; ValueError naming ``influence.<field>``."""
        for name in given:
            if getattr(self, name) is None:
                raise ValueError(f"{FIELD}.{name} must be given (none is not taken here)")
        if self.method is not None:
            check_choice(f"{FIELD}.method", self.method, methods)
        for name, low in (minimums or {}).items():
            if getattr(self, name) is not None:
                check_int(f"{FIELD}.{name}", getattr(self, name), low)


__all__ = ["ALIASES", "FIELD", "INPUTS", "InfluenceSettings", "METHODS", "OLD_KEYS"]
