"""The figures of a micro-training run, drawn from its tables alone (:mod:`lostmid_jax.plots.training`)."""

from __future__ import annotations

from .config import Config
from .tables import with_current_names


def figures(tables: dict, cfg: Config) -> dict:
    """{stem: Figure} from the run's tables (:mod:`lostmid_jax.plots.training`)."""
    from ...plots.training import all_figures
    from ...train import tasks

    tables = {stem: with_current_names(table) for stem, table in tables.items()}
    return all_figures(tables, cfg, boundaries=tasks.boundaries(cfg.base), chance=tasks.chance_accuracy(cfg.base))
