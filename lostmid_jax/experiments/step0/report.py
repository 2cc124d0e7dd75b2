"""Alias for one release: step0's summaries, 95% CIs and CSV rows live in :mod:`lostmid_jax.experiments.step0.tables`."""

from ..._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
