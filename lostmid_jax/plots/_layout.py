"""Where a plot function draws: a new Figure (no pyplot, no window backend) or the caller's Axes."""

from __future__ import annotations

import pathlib

import numpy as np
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine

POSITION_DECIMALS = 10
"""Decimals of a figure fraction every Axes position is rounded to after constrained layout (1e-10 of a
figure is about 1e-7 pixel)."""


class SettledLayout(ConstrainedLayoutEngine):
    """matplotlib's constrained layout, with every Axes position rounded to :data:`POSITION_DECIMALS`
    decimals of the figure after it runs, so that a figure draws to the same pixels in every process.

    Its solver's positions differ in the last bits from one process to another with where the process's
    memory put its objects (100 objects allocated before drawing step0's heat map changed them). Saved
    with the tight bounding box, the label that sets the figure's left edge starts at exactly pad_inches
    * dpi pixels, where FreeType's 1/64-pixel glyph origins fall on ties, so the last bits moved some of
    its glyphs by a pixel: a run's PNG and its redraw by `lostmid plot` differed in ~120 pixels.
    """

    def execute(self, fig):
        info = super().execute(fig)
        for ax in fig.axes:  # insets follow their parent through their locator; rounding theirs is harmless
            bounds = np.round(ax.get_position(original=True).bounds, POSITION_DECIMALS)
            ax.set_position(bounds, which="both")
            ax.set_in_layout(True)  # set_position takes an Axes out of the layout; this one stays in it
        return info


def layout_engine(layout):
    """What ``Figure(layout=...)`` gets for ``layout``: a :class:`SettledLayout` for "constrained", else
    ``layout`` unchanged (None, "tight", an engine)."""
    return SettledLayout() if layout == "constrained" else layout


def single_axes(ax, figsize, layout: str | None = None) -> tuple[Figure, object, bool]:
    """(figure, axes, own): ``ax`` and its figure, or a new figure of ``figsize`` (and ``layout``, e.g.
    "constrained": labels kept inside the figure, :class:`SettledLayout`) with one Axes."""
    if ax is None:
        fig = Figure(figsize=figsize, layout=layout_engine(layout))
        return fig, fig.subplots(), True
    return root_figure(ax), ax, False


def axes_grid(ax, nrows: int, ncols: int, figsize, *, needed: int | None = None,
              **subplots_kw) -> tuple[Figure, np.ndarray, bool]:
    """(figure, axes [rows, cols], own): the caller's Axes as a grid, or a new figure's.

    Args:
      ax: None (a new ``figsize`` figure with nrows x ncols Axes), or the
        caller's Axes: a 2-D array keeps its shape; a flat sequence of at
        least nrows * ncols is cut to that grid, a shorter one (at least
        ``needed``) is one row.
      needed: panels actually drawn (default nrows * ncols).
      subplots_kw: passed to ``Figure.subplots`` for a new figure (sharex,
        ...; ``layout`` goes to the Figure).
    """
    needed = nrows * ncols if needed is None else needed
    if ax is None:
        layout = subplots_kw.pop("layout", None)
        fig = Figure(figsize=figsize, layout=layout_engine(layout))
        return fig, fig.subplots(nrows, ncols, squeeze=False, **subplots_kw), True
    grid = np.asarray(ax, dtype=object)
    if grid.ndim == 0:
        grid = grid.reshape(1, 1)
    elif grid.ndim == 1:
        grid = grid[:nrows * ncols].reshape(nrows, ncols) if grid.size >= nrows * ncols else grid.reshape(1, -1)
    if grid.size < needed:
        raise ValueError(f"ax must hold at least {needed} Axes for this figure, got {grid.size}")
    return root_figure(grid.flat[0]), grid, False


def wrapped(text: str, width_inches: float, fontsize: float = 10.0) -> str:
    """``text`` broken at spaces into lines of at most the characters that fit ``width_inches`` at
    ``fontsize`` points (an average glyph is about 0.55 em wide), so a long title stays inside its figure."""
    import textwrap

    chars = max(20, int(width_inches * 72 / (0.55 * fontsize)))
    return "\n".join(textwrap.fill(line, chars, break_long_words=False) for line in str(text).splitlines())


def root_figure(ax) -> Figure:
    """The top-level Figure that holds ``ax`` (also when ``ax`` sits in a SubFigure)."""
    return ax.get_figure(root=True)


def save(fig: Figure, path, *, dpi: int | None = None, **savefig_kw) -> pathlib.Path:
    """Write ``fig`` to ``path`` (format from the suffix: png, pdf, svg); returns the path.

    ``dpi`` defaults to :data:`.style.DPI` (raster formats only).
    """
    from .style import DPI

    path = pathlib.Path(path)
    fig.savefig(path, dpi=DPI if dpi is None else dpi, **savefig_kw)
    return path
