"""Alias for one release: the Step-0 study's figures live in lostmid_jax.experiments.step0_study.figures."""

from .figures import convergence_figure, figures as draw, layers_figure, noise_figure, variants_figure

__all__ = ["convergence_figure", "draw", "layers_figure", "noise_figure", "variants_figure"]
