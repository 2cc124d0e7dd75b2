"""Alias for one release: configs as data (from_dict, to_dict, ...) live in :mod:`lostmid_jax.runs.config`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
