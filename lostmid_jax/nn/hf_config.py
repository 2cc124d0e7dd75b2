"""Alias for one release: config.json <-> DecoderConfig lives in :mod:`lostmid_jax.nn.hf.families` and :mod:`lostmid_jax.nn.hf.files`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
