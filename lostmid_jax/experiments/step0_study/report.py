"""Alias for one release: the Step-0 study's tables live in lostmid_jax.experiments.step0_study.tables, its summary
and verdict in lostmid_jax.experiments.step0_study.claims, its COLUMNS in lostmid_jax.experiments.step0_study.columns."""

from .claims import summary_table, verdict_lines, winner
from .columns import COLUMNS, TARGET
from .tables import layer_rows, noise_rows, preset_tables, tables

__all__ = ["COLUMNS", "TARGET", "layer_rows", "noise_rows", "preset_tables", "summary_table", "tables", "verdict_lines",
           "winner"]
