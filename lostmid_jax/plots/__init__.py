"""Matplotlib figures of the experiments.

Every plot function returns its ``matplotlib.figure.Figure`` and accepts
``ax=``: None draws a new Figure (built without pyplot, so no window backend
is needed and nothing is left open), or the caller's Axes (a sequence of
Axes for multi-panel figures) to draw into. Each module's ``figures(tables,
cfg)`` draws all of an experiment's figures from its saved tables (pandas
DataFrames, as ``lostmid_jax.runs.load_run`` returns them) and returns
{file stem: Figure}; the runner and ``lostmid plot`` save them. No module
here selects a matplotlib backend and none imports experiment or training
code: the figures take tables, arrays and duck-typed configs.

Positions follow the package convention: 1-based j, x = j/L; layers are
numbered from 1. Every figure uses the one style of :mod:`.style` (palette,
sizes, dpi 150, mathtext labels, annotated clipping, visible coincident curves).
"""

from .style import PALETTE

COLORS = list(PALETTE)
"""The Okabe-Ito palette as a list (:data:`lostmid_jax.plots.style.PALETTE`)."""
