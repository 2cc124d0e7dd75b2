"""Alias for one release: the report page's title and results table lives in :mod:`lostmid_jax.present.page`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
