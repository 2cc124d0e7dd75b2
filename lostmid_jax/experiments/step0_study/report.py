"""Alias for one release: the Step-0 study's tables live in :mod:`lostmid_jax.experiments.step0_study.tables`, its summary and verdict in .claims, its COLUMNS in .columns."""

from ..._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
