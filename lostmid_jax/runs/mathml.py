"""Alias for one release: the MathML of verdict formulas lives in :mod:`lostmid_jax.present.mathml`."""

from .._moved import alias

__getattr__, __dir__, __all__ = alias(__name__)
