"""Alias for one release: accuracy by passage and the middle-vs-ends test live in :mod:`lostmid_jax.probes.accuracy_by_passage`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
