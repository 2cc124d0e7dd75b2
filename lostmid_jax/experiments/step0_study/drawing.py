"""Alias for one release: the Step-0 study's figures live in :mod:`lostmid_jax.experiments.step0_study.figures`."""

from ..._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
