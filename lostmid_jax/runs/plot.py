"""Alias for one release: redrawing and saving a run's figures lives in :mod:`lostmid_jax.present.plot`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
