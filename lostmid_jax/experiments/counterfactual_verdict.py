"""Alias kept for one release: the counterfactual verdict lives in :mod:`lostmid_jax.experiments.counterfactuals.claims`."""

from .counterfactuals.claims import CATEGORIES, classify, verdict_lines

__all__ = ["CATEGORIES", "classify", "verdict_lines"]
