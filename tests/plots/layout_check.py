"""The layout check every figure must pass: text that a reader can read.

    problems = layout_problems(fig)     # [] when the figure reads cleanly, else one line per fault

A figure fails when, rendered (``fig.canvas.draw()`` on an Agg canvas, at the figure's dpi):

* two drawn text artists overlap: their rendered bounding boxes intersect by more than
  :data:`TOLERANCE_PX` in both directions (titles, axis labels, tick labels, legend entries, colour-bar
  ticks, in-cell values, annotations);
* a drawn text leaves the figure (its box reaches beyond the figure's edge by more than the tolerance);
* the tick labels drawn on one axis repeat (``1, 1, 1`` on a log axis without enough digits).

Only what is drawn counts: hidden Axes, tick labels outside the view, and empty strings are left out.
"""

from __future__ import annotations


import numpy as np
from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text

TOLERANCE_PX = 1.0
"""Pixels two boxes may share (antialiasing, glyph side bearings) before they count as overlapping."""


def _drawn_ticks(axis: Axis) -> list:
    """The ticks ``axis`` draws (inside its view interval), major then minor."""
    return list(axis._update_ticks())


def _tick_labels(axis: Axis) -> list[Text]:
    out = []
    for tick in _drawn_ticks(axis):
        for label in (tick.label1, tick.label2):
            if label.get_visible() and label.get_text().strip():
                out.append(label)
    return out


def _texts(artist, out: list) -> list:
    """Every visible, non-empty Text under ``artist`` that a draw renders."""
    if not artist.get_visible():
        return out
    if isinstance(artist, Axis):
        for text in (artist.label, artist.offsetText):
            if text.get_visible() and text.get_text().strip():
                out.append(text)
        out.extend(_tick_labels(artist))
        return out
    if isinstance(artist, Text):
        if artist.get_text().strip():
            out.append(artist)
        return out
    for child in artist.get_children():
        _texts(child, out)
    return out


def _name(text: Text) -> str:
    return repr(text.get_text()[:40])


def layout_problems(fig) -> list[str]:
    """One line per overlap, text outside the figure, or repeated tick labels of ``fig`` (module docstring)."""
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    problems = []
    texts = _texts(fig, [])
    boxes = np.array([t.get_window_extent(renderer).extents for t in texts]).reshape(-1, 4)  # x0 y0 x1 y1
    sized = (boxes[:, 2] - boxes[:, 0] > 0) & (boxes[:, 3] - boxes[:, 1] > 0)
    width, height = fig.bbox.width, fig.bbox.height
    for k in np.flatnonzero(sized):
        x0, y0, x1, y1 = boxes[k]
        if x0 < -TOLERANCE_PX or y0 < -TOLERANCE_PX or x1 > width + TOLERANCE_PX or y1 > height + TOLERANCE_PX:
            problems.append(f"text {_name(texts[k])} leaves the figure: box ({x0:.0f}, {y0:.0f}, {x1:.0f}, {y1:.0f}) "
                            f"px, figure {width:.0f} x {height:.0f} px")
    index = np.flatnonzero(sized)
    b = boxes[index]
    wide = np.minimum(b[:, None, 2], b[None, :, 2]) - np.maximum(b[:, None, 0], b[None, :, 0])
    tall = np.minimum(b[:, None, 3], b[None, :, 3]) - np.maximum(b[:, None, 1], b[None, :, 1])
    hits = np.argwhere(np.triu((wide > TOLERANCE_PX) & (tall > TOLERANCE_PX), k=1))
    for i, j in hits:
        problems.append(f"texts {_name(texts[index[i]])} and {_name(texts[index[j]])} overlap "
                        f"({wide[i, j]:.0f} x {tall[i, j]:.0f} px)")
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for axis in (ax.xaxis, ax.yaxis):
            if not axis.get_visible():
                continue
            labels = [t.get_text() for t in _tick_labels(axis)]
            repeated = sorted({s for s, n in ((s, labels.count(s)) for s in labels) if n > 1})
            if repeated:
                problems.append(f"tick labels repeat on {axis.axis_name} of {ax.get_title() or ax.get_label()!r}: "
                                f"{', '.join(labels)}")
    return problems


def count_texts(fig) -> int:
    """How many drawn texts ``fig`` holds (after a draw): a check that found none checked nothing."""
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    return len(_texts(fig, []))


__all__ = ["TOLERANCE_PX", "count_texts", "layout_problems"]
