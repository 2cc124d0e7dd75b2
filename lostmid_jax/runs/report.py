"""Alias for one release: the HTML report of a run lives in :mod:`lostmid_jax.present.report`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
