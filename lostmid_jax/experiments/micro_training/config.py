"""Which runs micro-training trains: the baseline TrainConfig, the seeds and the interventions (Config), and
the --smoke sizes."""

from __future__ import annotations

import dataclasses

from ...runs.config import tuples_from_lists
from ...train.config import INTERVENTIONS, SMOKE as TRAIN_SMOKE, TrainConfig, intervention_name
from ...validation import check_choice, check_int


@dataclasses.dataclass(frozen=True, kw_only=True)
class Config:
    """Which runs to train.

    Attributes:
      base: the baseline TrainConfig (its intervention and seed are replaced per run).
      seeds: seeds shared by every intervention (at least one; distinct ints >= 0).
      interventions: drawn from middle_weighted_loss, oversample_middle, curriculum ('' for none); the
        baseline "none" always runs first (the old name middle_loss is read as middle_weighted_loss).
    """

    base: TrainConfig = TrainConfig()
    seeds: tuple[int, ...] = (0, 1, 2)
    interventions: tuple[str, ...] = ("middle_weighted_loss", "oversample_middle", "curriculum")

    def __post_init__(self):
        tuples_from_lists(self)
        object.__setattr__(self, "interventions", tuple(intervention_name(v, "interventions")
                                                        for v in self.interventions))
        if not isinstance(self.base, TrainConfig):
            raise ValueError(f"base must be a TrainConfig (or a dict of its fields), got {type(self.base).__name__}")
        if not self.seeds or len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f"seeds must be distinct ints >= 0 (at least one), got {self.seeds!r}")
        for s in self.seeds:
            check_int("seeds", s, 0)
        for name in self.interventions:
            check_choice("interventions", name, INTERVENTIONS)

    @property
    def variants(self) -> tuple[str, ...]:
        """"none" followed by the other interventions, in order, without repeats."""
        return ("none",) + tuple(dict.fromkeys(v for v in self.interventions if v != "none"))


SMOKE = {**{f"base.{k}": v for k, v in TRAIN_SMOKE.items()}, "seeds": (0, 1), "interventions": ("middle_weighted_loss",)}
