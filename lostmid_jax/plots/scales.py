"""Scales that keep values apart: ratios around 1 on a symmetric log colour scale, tick labels with the digits
they need, and error bars from interval ends.

    norm, ticks = ratio_norm(values, top=4.0)       # LogNorm(1/m, m), m = max |log10 v| (capped at top): 1 in the
    bar = fig.colorbar(image, ax=ax)                # middle, a 3% excess as dark as a 3% deficit
    ratio_colorbar_ticks(bar, ticks)                # ticks on both halves: 1/u, 1, u (u = 2, 4 or 1 + d)
    ratio_axis(ax, m, "y")                          # log axis [1/m, m], ticks symmetric about 1
    distinct_ticks(ax, "y")                         # 0.999, 0.9995, 1, 1.0005 (never 1, 1, 1)
    yerr = error_lengths(y, lo, hi)                 # [2, n] >= 0 bar lengths (NaN and a point outside its interval: 0)

A ratio r to a reference (attention received over uniform, i A_ij) is read on the log scale, where an excess
by a factor f and a deficit by the same factor lie at the same distance from 1 and get equally dark colours
of the diverging map :data:`RATIO_CMAP`.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import Formatter, NullFormatter

RATIO_CMAP = "RdBu_r"
"""Diverging colour map of ratios: blue below 1, white at 1, red above."""
MIN_SPAN = 1.01
"""The narrowest colour scale of ratios: [1/1.01, 1.01] (a perfectly uniform map is not stretched to noise)."""


def ratio_limit(values, top: float | None = None) -> float:
    """m = 10^max|log10 v| over the finite values v > 0, at least :data:`MIN_SPAN`, at most ``top``."""
    v = np.asarray(values, float).ravel()
    v = v[np.isfinite(v) & (v > 0)]
    if top is not None and not top > 1:
        raise ValueError(f"top must be > 1, got {top!r}")
    limit = float(10.0 ** np.max(np.abs(np.log10(v)))) if v.size else MIN_SPAN
    limit = max(limit, MIN_SPAN)
    return min(limit, float(top)) if top is not None else limit


def ratio_ticks(limit: float, most: int = 2) -> list[float]:
    """Ticks of a ratio scale [1/limit, limit], in pairs u and 1/u (as far from 1 on the log scale), plus 1:
    u = 10, 100, ... when limit >= 10, u = 2, 4, 8 when limit >= 2, else u = 1 + d, 1 + 2d, ... with d a 1-2-5 step; at most ``most`` pairs.

    >>> ratio_ticks(4.0)
    [0.25, 0.5, 1.0, 2.0, 4.0]
    """
    if not limit > 1:
        raise ValueError(f"limit must be > 1, got {limit!r}")
    if limit >= 2:
        base = 10.0 if limit >= 10 else 2.0
        ups = [base ** k for k in range(1, int(np.floor(np.log(limit) / np.log(base) + 1e-9)) + 1)]
    else:
        excess = limit - 1
        steps = [m * 10.0 ** k for k in range(int(np.floor(np.log10(excess))) - 1, 1) for m in (1, 2, 5)]
        step = next((d for d in steps if excess / d < most + 1), steps[-1])
        ups = [1 + step * n for n in range(1, most + 1) if 1 + step * n <= limit * (1 + 1e-12)]
    ups = ups[::-1][::-(-len(ups) // most)][::-1]  # thinned from the largest down
    return [1.0 / u for u in ups[::-1]] + [1.0] + ups


def ratio_norm(values, top: float | None = None):
    """(LogNorm(1/m, m), ticks) for ratios ``values`` around 1 (m = :func:`ratio_limit`): symmetric on the log
    scale, so 1 sits in the middle of the colour map; ticks from :func:`ratio_ticks` (both halves)."""
    from matplotlib.colors import LogNorm

    limit = ratio_limit(values, top)
    return LogNorm(vmin=1.0 / limit, vmax=limit), ratio_ticks(limit)


def ratio_colorbar_ticks(bar, ticks) -> None:
    """Put ``ticks`` (both halves of a :func:`ratio_norm` scale) on colour bar ``bar``, labelled with the digits
    that tell them apart, and no minor labels."""
    from matplotlib.ticker import FixedLocator, NullLocator

    axis = bar.ax.yaxis if bar.orientation == "vertical" else bar.ax.xaxis
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_minor_locator(NullLocator())
    axis.set_major_formatter(DistinctFormatter(digits=3))
    axis.set_minor_formatter(NullFormatter())


def ratio_axis(ax, limit: float, axis: str = "y") -> None:
    """A log ``axis`` for ratios around 1: limits [1/limit, limit], ticks u and 1/u (:func:`ratio_ticks`)
    labelled with the digits that tell them apart, no minor ticks."""
    from matplotlib.ticker import FixedLocator, NullLocator

    if axis not in ("x", "y"):
        raise ValueError(f"axis must be 'x' or 'y', got {axis!r}")
    getattr(ax, f"set_{axis}scale")("log")
    getattr(ax, f"set_{axis}lim")(1.0 / limit, limit)
    target = getattr(ax, f"{axis}axis")
    target.set_major_locator(FixedLocator(ratio_ticks(limit)))
    target.set_minor_locator(NullLocator())
    target.set_major_formatter(DistinctFormatter(digits=3))
    target.set_minor_formatter(NullFormatter())


def _plain(value: float, digits: int) -> str:
    """``value`` to ``digits`` significant digits, plainly (1000, 0.9995); a power of ten in mathtext beyond
    1e-4 .. 1e6."""
    if value == 0 or not np.isfinite(value):
        return "0" if value == 0 else str(value)
    if 1e-4 <= abs(value) < 1e6:
        text = f"{value:.{digits}g}"
        if "e" in text:  # .2g of 1000 is 1e+03
            text = f"{value:.0f}"
    else:
        mantissa, exponent = f"{value:.{max(digits - 1, 0)}e}".split("e")
        text = f"${mantissa.rstrip('0').rstrip('.')}\\times10^{{{int(exponent)}}}$"
        if mantissa.rstrip("0").rstrip(".") in ("1", "-1"):
            text = f"${'-' if value < 0 else ''}10^{{{int(exponent)}}}$"
    return text.replace("-", "\u2212")


class DistinctFormatter(Formatter):
    """Tick labels with the fewest significant digits (at least ``digits``) that make every label of the axis
    distinct: 0.999, 0.9995, 1, 1.0005 rather than 1, 1, 1."""

    def __init__(self, digits: int = 2, max_digits: int = 12):
        self.digits, self.max_digits = int(digits), int(max_digits)

    def format_ticks(self, values):
        values = [float(v) for v in values]
        labels = [_plain(v, self.digits) for v in values]
        for digits in range(self.digits, self.max_digits + 1):
            labels = [_plain(v, digits) for v in values]
            if len(set(labels)) == len(labels):
                break
        return labels

    def __call__(self, x, pos=None):
        return _plain(float(x), self.digits)


def distinct_ticks(ax, axis: str = "y") -> None:
    """Major tick labels of ``axis`` ("x", "y" or "both") of ``ax`` with enough digits to differ
    (:class:`DistinctFormatter`); minor labels off."""
    if axis not in ("x", "y", "both"):
        raise ValueError(f"axis must be 'x', 'y' or 'both', got {axis!r}")
    for name in ("x", "y") if axis == "both" else (axis,):
        target = getattr(ax, f"{name}axis")
        target.set_major_formatter(DistinctFormatter())
        target.set_minor_formatter(NullFormatter())


def error_lengths(y, lo, hi) -> np.ndarray:
    """[2, n] error-bar lengths (y - lo, hi - y) for ``errorbar``: NaN ends give 0, and so does an end on the
    wrong side of its point (a basic-bootstrap interval that misses its estimate, or a rounded bound a hair
    past the value); matplotlib refuses negative lengths."""
    y, lo, hi = (np.asarray(a, float) for a in (y, lo, hi))
    err = np.vstack([y - lo, hi - y])
    return np.maximum(np.where(np.isfinite(err), err, 0.0), 0.0)


__all__ = ["MIN_SPAN", "RATIO_CMAP", "DistinctFormatter", "distinct_ticks", "error_lengths", "ratio_axis",
           "ratio_colorbar_ticks", "ratio_limit", "ratio_norm", "ratio_ticks"]
