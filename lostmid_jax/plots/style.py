"""One look for every figure of the toolkit: palette, sizes, and the fixes that recur.

    from lostmid_jax.plots import style

    with style.context():                       # rc settings apply to what is created inside
        fig = Figure(figsize=(6, 4))
        ax = fig.subplots()
        for i, (label, y) in enumerate(curves.items()):
            ax.plot(x, y, label=label, **style.series(i, len(curves)))
        style.mark_coincident(ax)               # "(coincides with ...)" where curves overlap
        style.annotate_clipping(ax, "y", -85, n_clipped=3)
        style.integer_ticks(ax, "x")            # training steps, layers, heads
        ax.legend()

Conventions (every command follows them):

* colours: :data:`PALETTE` (Okabe-Ito, safe under the common colour-vision
  deficiencies), in order; black is last and is kept for reference curves
  (laws, theory);
* series i of n gets colour, marker and line style ``series(i, n)``: the
  markers of different series sit at staggered places along the curve, so
  two curves that coincide still show both markers (and both dash
  patterns); :func:`mark_coincident` also says so in the legend;
* log axes show raw values (a tick "10^2" means 100); a quantity already in
  log10 goes on a linear axis labelled r"$\\log_{10}$ ...", never both;
* an axis limit that hides data is annotated (:func:`annotate_clipping`);
* labels are mathtext (r"$x = j/L$", r"$\\rho_H(1/2)$"), never identifiers;
* axes counting steps, layers or heads get integer ticks (:func:`integer_ticks`);
  a count spanning decades (depth H, length L) goes on a log axis with plain
  labels 1, 2, 4, ... (:func:`log_count_axis`);
* a ratio to a reference (attention over uniform, a remedy over the
  unmodified model) goes on a log scale symmetric about 1, as an axis or a
  diverging colour map ticked on both halves (:mod:`.scales`); values over
  hundreds of decades are coloured by the log of their decades;
* tick labels carry the digits that tell them apart (:mod:`.scales`), and
  every text stays inside the figure without overlapping another (the tests'
  layout check draws every figure of every experiment).

Nothing here selects a matplotlib backend or imports pyplot.
"""

from __future__ import annotations

import functools

import numpy as np

PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
"""Okabe-Ito colours: blue, orange, bluish green, vermillion, reddish purple, sky blue, yellow, black.
Yellow is faint on white: a figure with more than six series should thin them first."""

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
"""One marker per series, in the order of :data:`PALETTE`."""

LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (1, 2)), (0, (7, 2, 2, 2)))
"""One line style per series, in the order of :data:`PALETTE`."""

DPI = 150
"""Resolution of saved raster figures (PNG)."""

RC = {
    "figure.dpi": DPI,
    "savefig.dpi": DPI,
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 7.5,
    "legend.framealpha": 0.85,
    "figure.titlesize": 11,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "lines.linewidth": 1.6,
    "lines.markersize": 4.5,
    "image.cmap": "viridis",
    "mathtext.fontset": "dejavusans",
    "axes.formatter.use_mathtext": True,
    "axes.unicode_minus": True,
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.05,
    "pdf.fonttype": 42,  # TrueType (Type 42) fonts in PDF and PS: journals refuse Type 3
    "ps.fonttype": 42,
    "svg.fonttype": "none",  # SVG text stays <text> (editable), not glyph paths
}
"""The rc settings of :func:`context` (colours are set from :data:`PALETTE`)."""


def context(**overrides):
    """A ``matplotlib.rc_context`` with the toolkit's style (:data:`RC`, colour cycle :data:`PALETTE`).

    Settings apply to figures, axes and text created inside the block; save
    inside it too (or pass ``dpi=DPI``) for the same resolution.
    ``overrides``: rc keys to change (dots as in matplotlib, e.g.
    ``**{"font.size": 12}``).
    """
    import matplotlib
    from cycler import cycler

    rc = {**RC, "axes.prop_cycle": cycler(color=list(PALETTE)), **overrides}
    return matplotlib.rc_context(rc)


def styled(func):
    """Decorator: run a figure function inside :func:`context`."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with context():
            return func(*args, **kwargs)
    return wrapper


def color(i: int) -> str:
    """The colour of series ``i`` (cycles through :data:`PALETTE`)."""
    return PALETTE[_index(i) % len(PALETTE)]


def series(i: int, n: int | None = None, *, marker: bool = True, every: float = 0.12) -> dict:
    """Keyword arguments for ``ax.plot`` of series ``i`` of ``n``: colour, line style, marker.

    Series i and i + 8 share a colour but not a line style, marker or fill.
    Markers are placed every ``every`` of the axes diagonal (in display
    space, so also on log axes), series i starting at ``i / n`` of that
    spacing (n defaults to len(MARKERS)): coincident series show their
    markers side by side.
    ``marker=False`` leaves markers out (dense or many curves).
    """
    i = _index(i)
    n = len(MARKERS) if n is None else _index(n, "n")
    if i >= n:
        raise ValueError(f"i must be < n = {n}, got {i}")
    if not 0 < every <= 1:
        raise ValueError(f"every must lie in (0, 1], got {every!r}")
    lap = i // len(PALETTE)  # past the palette the colours repeat: shift line style, marker and fill
    kw = {"color": color(i), "linestyle": LINESTYLES[(i + 3 * lap) % len(LINESTYLES)]}
    if marker:
        kw.update(marker=MARKERS[(i + 3 * lap) % len(MARKERS)], markevery=(every * (i % n) / n, every),
                  markerfacecolor="none" if (i + lap) % 2 else color(i))
    return kw


def _index(value, name: str = "i") -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    return int(value)


def coincident_pairs(ax, *, rtol: float = 1e-6, atol: float = 0.0) -> list[tuple[object, object]]:
    """(later line, earlier line) pairs of labelled lines of ``ax`` whose data agree.

    Two lines agree when their x data are equal and their y data match to
    ``rtol``/``atol`` wherever either is finite (NaN and inf must sit at the
    same places). Each line is paired with the first line it agrees with.
    """
    if rtol < 0 or atol < 0:
        raise ValueError(f"rtol and atol must be >= 0, got {rtol!r}, {atol!r}")
    lines = [ln for ln in ax.get_lines() if not str(ln.get_label()).startswith("_")]
    data = [(np.asarray(ln.get_xdata(), dtype=float), np.asarray(ln.get_ydata(), dtype=float)) for ln in lines]
    pairs = []
    for k, (xk, yk) in enumerate(data):
        for m in range(k):
            xm, ym = data[m]
            if xk.shape == xm.shape and xk.size and np.array_equal(xk, xm) and _same(yk, ym, rtol, atol):
                pairs.append((lines[k], lines[m]))
                break
    return pairs


def _same(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> bool:
    if a.shape != b.shape:
        return False
    finite = np.isfinite(a) & np.isfinite(b)
    if not np.array_equal(np.isfinite(a), np.isfinite(b)) or not np.array_equal(a[~finite], b[~finite],
                                                                                 equal_nan=True):
        return False
    return bool(np.allclose(a[finite], b[finite], rtol=rtol, atol=atol))


def mark_coincident(ax, *, rtol: float = 1e-6, atol: float = 0.0) -> list[str]:
    """Append " (coincides with <label>)" to the label of each line that coincides with an earlier one.

    Call it after plotting and before ``ax.legend()``. Returns the new
    labels. The lines stay visible through their markers and dashes
    (:func:`series`); this makes the legend say why only one colour shows.
    """
    changed = []
    for line, first in coincident_pairs(ax, rtol=rtol, atol=atol):
        label = f"{line.get_label()} (coincides with {first.get_label()})"
        line.set_label(label)
        changed.append(label)
    return changed


def side_by_side(ax, x, y, yerr, i: int, n: int, spacing: float = 3.0, **kw):
    """ax.errorbar(x, y, yerr) of series i of n, shifted ``spacing`` points right per series (centred on 0):
    series drawn at the same x stay side by side on any x scale (step 0 of a symlog axis too), so equal points
    keep both markers and both error bars. ``yerr``: None, [N] or [2, N]; ``kw`` go to ``ax.errorbar``, whose
    container it returns."""
    from matplotlib.transforms import offset_copy

    shift = offset_copy(ax.transData, fig=ax.figure, x=spacing * (i - (n - 1) / 2), y=0, units="points")
    bars = ax.errorbar(x, y, yerr=yerr, transform=shift, **kw)
    x, y = np.asarray(x, float), np.asarray(y, float)
    err = np.zeros((2, y.size)) if yerr is None else np.broadcast_to(np.asarray(yerr, float), (2, y.size))
    ends = np.concatenate([y - err[0], y + err[1]])
    keep = np.isfinite(ends) & (ends > 0 if ax.get_yscale() == "log" else True)
    ax.update_datalim(np.column_stack([np.tile(x, 2), ends])[keep])  # a shifted artist is not autoscaled
    ax.autoscale_view()
    return bars


def annotate_clipping(ax, axis: str, limit: float, n_clipped: int, *, what: str = "points", note: str = ""):
    """Say on ``ax`` that ``n_clipped`` values lie beyond ``limit`` of the ``axis`` ("x" or "y") and are not shown.

    The note sits inside the axes at the edge nearest ``limit`` (lower or
    upper, from the axis' current limits; set them first), e.g.
    "5 points below -85 not shown", followed by `` (note)`` when ``note`` is
    given. Returns the Text, or None when ``n_clipped`` is 0.
    """
    if axis not in ("x", "y"):
        raise ValueError(f"axis must be 'x' or 'y', got {axis!r}")
    n_clipped = _index(n_clipped, "n_clipped")
    limit = float(limit)
    if not np.isfinite(limit):
        raise ValueError(f"limit must be finite, got {limit!r}")
    if n_clipped == 0:
        return None
    lo, hi = ax.get_ylim() if axis == "y" else ax.get_xlim()
    lower = abs(limit - min(lo, hi)) <= abs(limit - max(lo, hi))
    side = ("below" if lower else "above") if axis == "y" else ("left of" if lower else "right of")
    text = f"{n_clipped} {what} {side} {_format(limit)} not shown" + (f" ({note})" if note else "")
    if axis == "y":
        xy, ha, va = (0.98, 0.02 if lower else 0.98), "right", "bottom" if lower else "top"
        arrow = "\u25bc" if lower else "\u25b2"
    else:
        xy, ha, va = (0.02 if lower else 0.98, 0.5), "left" if lower else "right", "center"
        arrow = "\u25c0" if lower else "\u25b6"
    return ax.text(*xy, f"{arrow} {text}", transform=ax.transAxes, ha=ha, va=va, fontsize="small",
                   bbox={"boxstyle": "round,pad=0.25", "facecolor": "white", "edgecolor": "0.6", "alpha": 0.9},
                   zorder=10)


def _format(value: float) -> str:
    return f"{value:g}".replace("-", "\u2212")


def log_count_axis(ax, axis: str = "x", *, base: int = 2):
    """Log scale on ``axis`` ("x" or "y") for a count such as the depth H or the length L: major ticks at
    powers of ``base``, labelled as plain numbers (1, 2, 4, ..., 256), no minor labels."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    if axis not in ("x", "y"):
        raise ValueError(f"axis must be 'x' or 'y', got {axis!r}")
    if isinstance(base, bool) or not isinstance(base, (int, np.integer)) or base < 2:
        raise ValueError(f"base must be an integer >= 2, got {base!r}")
    target = getattr(ax, f"{axis}axis")
    getattr(ax, f"set_{axis}scale")("log", base=base)
    target.set_major_locator(LogLocator(base=base))
    target.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.0f}" if v >= 1 else f"{v:g}"))
    target.set_minor_formatter(NullFormatter())
    return ax


def integer_ticks(ax, axis: str = "x", *, nbins: int | str = "auto"):
    """Integer-only major ticks on ``axis`` ("x", "y" or "both") of ``ax``: steps, layers, heads."""
    from matplotlib.ticker import MaxNLocator

    if axis not in ("x", "y", "both"):
        raise ValueError(f"axis must be 'x', 'y' or 'both', got {axis!r}")
    for name in ("x", "y") if axis == "both" else (axis,):
        getattr(ax, f"{name}axis").set_major_locator(MaxNLocator(nbins=nbins, integer=True))
    return ax


__all__ = ["DPI", "LINESTYLES", "MARKERS", "PALETTE", "RC", "annotate_clipping", "coincident_pairs", "color",
           "context", "integer_ticks", "log_count_axis", "mark_coincident", "series", "styled"]
