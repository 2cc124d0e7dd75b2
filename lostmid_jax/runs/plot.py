"""Alias for one release: redrawing and saving a run's figures lives in lostmid_jax.present.plot."""

from ..present.plot import FIGURE_FORMATS, draw, draw_figures, failure_line, figure_title, parse_formats, plain_title, save_figures

__all__ = ["FIGURE_FORMATS", "draw", "draw_figures", "failure_line", "figure_title", "parse_formats", "plain_title", "save_figures"]
