"""Alias for one release: the counterfactual verdict lives in :mod:`lostmid_jax.experiments.counterfactuals.claims`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
