"""Alias for one release: the text specs of the priors live in :mod:`lostmid_jax.masks.text`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
