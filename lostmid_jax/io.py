"""Alias for one release: run directories, config.json and CSV files live in :mod:`lostmid_jax.runs`."""

from ._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
