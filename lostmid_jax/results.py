"""Alias for one release: load_run, figures and tables live in :mod:`lostmid_jax.runs`."""

from ._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
