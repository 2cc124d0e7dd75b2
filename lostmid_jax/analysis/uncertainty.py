"""Alias for one release: agreement and its intervals live in :mod:`lostmid_jax.stats.agreement` (Misfit, log_misfit: :mod:`lostmid_jax.stats.misfit`)."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
