"""Figures of the counterfactual sweep (:mod:`lostmid_jax.experiments.counterfactuals`).

1. profiles: one panel per prior, log10 of the density L w_j against
   x = j/L for a few depths, the causal profile as a grey reference and the
   dead-zone threshold as a dotted line; exact zeros (no attention path)
   cannot be drawn on a log axis and leave gaps, said in the panel title.
2. valley vs depth: log10 density at x = 1/2 and the dead share against H.

``result`` is any object with the sweep's ``config`` (``length``,
``priors``, ``profile_depth``, ``dead_below``, ``schedule_label``),
``records`` (dicts) and ``profiles`` ({prior spec: {H: log row [L]}}, the
depths to draw), e.g. lostmid_jax.experiments.counterfactuals.Result.
"""

from __future__ import annotations

import math
import pathlib

import numpy as np

from . import COLORS
from ._layout import axes_grid, save
from ..theory import positions

# Okabe-Ito without its yellow, which is too light for lines on white.
_LINE_COLORS = [c for c in COLORS if c != "#F0E442"]
_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
_DASHES = ["-", "--", "-.", ":"]
_DENSITY = r"$\log_{10}(L\,w_j)$"
_LN10 = math.log(10.0)


def _log10_density(log_row: np.ndarray) -> np.ndarray:
    return (log_row + math.log(log_row.size)) / _LN10


def profiles_figure(result, *, ax=None):
    """Figure 1: the profiles side by side, one panel per prior; returns the Figure.

    ``ax``: a grid (2-D) or a row (flat sequence) of at least one Axes per
    prior; unused ones are hidden.
    """
    cfg = result.config
    specs = list(cfg.priors)
    depths = sorted({depth for rows in result.profiles.values() for depth in rows})
    ncols = min(4, len(specs))
    nrows = -(-len(specs) // ncols)
    fig, axes, own = axes_grid(ax, nrows, ncols, (3.6 * ncols, 3.1 * nrows + 0.6), needed=len(specs),
                               sharex=True, sharey=True)
    x = positions(cfg.length)
    labels = {r["prior"]: r["label"] for r in result.records}
    causal = result.profiles.get("causal", {}).get(cfg.profile_depth)
    finite = [v for rows in result.profiles.values() for row in rows.values() for v in _log10_density(row) if np.isfinite(v)]
    for ax, spec in zip(axes.flat, specs):
        rows = result.profiles[spec]
        if causal is not None and spec != "causal":
            ax.plot(x[:-1], _log10_density(causal)[:-1], "--", color="0.6", linewidth=1.2, label=f"causal, H={cfg.profile_depth}")
        for color, depth in zip(_LINE_COLORS, depths):
            density = _log10_density(rows[depth])
            ax.plot(x[:-1], density[:-1], color=color, linewidth=1.5, label=f"H={depth}")
            if np.isfinite(density[-1]):
                ax.plot([1.0], [density[-1]], "o", color=color, markersize=4)
        ax.axhline(math.log10(cfg.dead_below), color="k", linestyle=":", linewidth=1, label="dead-zone threshold")
        gaps = any(np.any(row[:-1] == -np.inf) for row in rows.values())
        ax.set_title(labels[spec] + ("\n(gaps: influence exactly 0)" if gaps else ""), fontsize=10)
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(specs):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("position x = j / L")
        ax.xaxis.set_tick_params(labelbottom=True)
    for ax in axes[:, 0]:
        ax.set_ylabel(f"{_DENSITY}  (uniform = 0)")
    if finite:
        for ax in (axes.flat[:1] if own else axes.flat[:len(specs)]):  # a new figure shares y
            ax.set_ylim(max(min(finite), -60) - 1, max(finite) + 0.5)
    legend_ax = axes.flat[min(1, len(specs) - 1)]
    handles, names = legend_ax.get_legend_handles_labels()
    if not own:
        legend_ax.legend(handles, names, fontsize=8)
        return fig
    fig.legend(handles, names, loc="lower center", ncol=len(names), fontsize=9, bbox_to_anchor=(0.5, -0.02))
    fig.suptitle(f"Step-0 influence on the last token under each attention prior "
                 f"(L={cfg.length}, {cfg.schedule_label}; dots: last token)", fontsize=12)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig


def valley_figure(result, *, ax=None):
    """Figure 2: middle density and dead share against depth H, one line per prior; returns the Figure.

    ``ax``: two Axes (middle density, dead share).
    """
    cfg = result.config
    fig, axes, own = axes_grid(ax, 1, 2, (13, 4.6))
    mid_ax, dead_ax = axes.flat[0], axes.flat[1]
    finite = [r["log10_middle_density"] for r in result.records if math.isfinite(r["log10_middle_density"])]
    floor = (min(finite) if finite else 0.0) - 1.0
    zero_note = False
    for k, spec in enumerate(cfg.priors):
        mine = sorted((r for r in result.records if r["prior"] == spec), key=lambda r: r["depth"])
        style = dict(color=_LINE_COLORS[k % len(_LINE_COLORS)], marker=_MARKERS[k % len(_MARKERS)], markersize=5,
                     linestyle=_DASHES[k % len(_DASHES)])
        depths = [r["depth"] for r in mine]
        middle = np.array([r["log10_middle_density"] for r in mine])
        mid_ax.plot(depths, np.where(np.isfinite(middle), middle, np.nan), label=mine[0]["label"], **style)
        if np.any(~np.isfinite(middle)):
            zero_note = True
            mid_ax.plot(np.asarray(depths)[~np.isfinite(middle)], np.full((~np.isfinite(middle)).sum(), floor),
                        **{**style, "linestyle": "none", "marker": "v", "markersize": 8})
        dead_ax.plot(depths, [100 * r["dead_fraction"] for r in mine], label=mine[0]["label"], **style)
    mid_ax.axhline(math.log10(cfg.dead_below), color="k", linestyle=":", linewidth=1)
    mid_ax.set_ylabel(f"{_DENSITY} at $x = 1/2$  (uniform = 0)")
    mid_ax.set_title("Middle of the context" + ("\n(triangles at the bottom: exactly 0)" if zero_note else ""))
    dead_ax.set_ylabel(f"dead positions (% of $j < L$ with $L\\,w_j < {cfg.dead_below:g}$)")
    dead_ax.set_ylim(-3, 103)
    dead_ax.set_title("Size of the dead zone")
    for ax in (mid_ax, dead_ax):
        ax.set_xlabel("depth H (layers)")
        ax.grid(alpha=0.3)
    dead_ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    if own:
        fig.suptitle(f"Valley against depth (L={cfg.length}, {cfg.schedule_label})", fontsize=12)
        fig.tight_layout()
    return fig


def all_figures(result, run_dir: pathlib.Path) -> list[pathlib.Path]:
    """Write fig1_profiles.png and fig2_valley_vs_depth.png into ``run_dir``; return their paths."""
    run_dir = pathlib.Path(run_dir)
    return [
        save(profiles_figure(result), run_dir / "fig1_profiles.png", dpi=130, bbox_inches="tight"),
        save(valley_figure(result), run_dir / "fig2_valley_vs_depth.png", dpi=130, bbox_inches="tight"),
    ]
