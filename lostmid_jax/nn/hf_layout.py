"""Alias for one release: tensor layouts live in the family modules of :mod:`lostmid_jax.nn.hf` (:mod:`lostmid_jax.nn.hf.families`)."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
