"""Alias for one release: load_run and tables live in :mod:`lostmid_jax.runs`, figures in :mod:`lostmid_jax.present.plot`."""

from ._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
