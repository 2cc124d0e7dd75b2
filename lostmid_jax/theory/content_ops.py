"""Alias for one release: the row operators of Content priors live in :mod:`lostmid_jax.masks.content_ops`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
