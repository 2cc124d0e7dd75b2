"""Alias for one release: the MathML of verdict formulas lives in lostmid_jax.present.mathml."""

from ..present.mathml import inline

__all__ = ["inline"]
