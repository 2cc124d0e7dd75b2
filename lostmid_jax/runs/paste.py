"""Alias for one release: a run's main table as text to paste lives in :mod:`lostmid_jax.present.paste`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
