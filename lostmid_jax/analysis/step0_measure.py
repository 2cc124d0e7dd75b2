"""Alias for one release: the measured Content prior lives in :mod:`lostmid_jax.analysis.measured_prior`, a unit's random input in :mod:`lostmid_jax.analysis.random_inputs`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
