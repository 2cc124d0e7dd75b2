"""Alias for one release: the counterfactual sweep lives in :mod:`lostmid_jax.experiments.counterfactuals.measure`."""

from ..._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
