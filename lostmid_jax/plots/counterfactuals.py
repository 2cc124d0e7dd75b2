"""Figures of the counterfactual sweep, drawn only from its saved tables.

``results`` is results.csv and ``profiles`` is profiles.csv as pandas
DataFrames (what ``lostmid_jax.runs.load_run`` returns); ``cfg`` is any object
with the sweep's ``priors`` (specs, in order), ``profile_depth``,
``dead_below`` and ``schedule_label``
(lostmid_jax.experiments.counterfactuals.Config).

1. profiles: one panel per prior, log10 of the density L w_j against
   x = j/L for a few depths, the causal profile as a grey reference and the
   dead-zone threshold as a dotted line; exact zeros (no attention path)
   cannot be drawn and leave gaps, said in the panel title; the y axis is
   clipped at :data:`CLIP_DECADES` decades below uniform (annotated).
2. valley vs depth: log10 density at x = 1/2 and the dead share against H.
3. family dead zone: the dead share of each decoder family's prior at the
   profile depth (bars).

Values already in log10 go on linear axes labelled $\\log_{10}$.
"""

from __future__ import annotations

import math

import numpy as np

from . import style
from ._layout import axes_grid, single_axes

CLIP_DECADES = 60
"""Figure 1 shows at most this many decades below uniform (plus a margin)."""

_DENSITY = r"$\log_{10}(L\,w_j)$"


def _plot(ax, x, y, **kw):
    """ax.plot, without the staggered markers when no point is finite (matplotlib cannot place them then)."""
    y = np.asarray(y, dtype=float)
    if not np.any(np.isfinite(y)):
        kw = {k: v for k, v in kw.items() if k not in ("marker", "markevery", "markerfacecolor")}
    return ax.plot(x, y, **kw)


def _same_as_causal(profiles, spec: str) -> bool:
    """Whether prior ``spec``'s profiles equal the causal prior's at every drawn depth and position (a window
    wider than L, say): its curves then lie exactly on the causal reference, which the panel title says."""
    if spec == "causal":
        return False
    keys = ["depth", "j"]
    mine = profiles[profiles["prior"] == spec].set_index(keys)["log10_density"]
    causal = profiles[profiles["prior"] == "causal"].set_index(keys)["log10_density"].reindex(mine.index)
    a, b = mine.to_numpy(float), causal.to_numpy(float)
    return bool(len(a)) and bool(np.all((a == b) | np.isclose(a, b, rtol=0, atol=1e-9)))


def _labels(results) -> dict[str, str]:
    return dict(zip(results["prior"], results["label"]))


@style.styled
def profiles_figure(profiles, results, cfg, *, ax=None):
    """Figure 1: the profiles side by side, one panel per prior; returns the Figure.

    ``ax``: a grid (2-D) or a row (flat sequence) of at least one Axes per
    prior; unused ones are hidden.
    """
    specs = [s for s in cfg.priors if s in set(profiles["prior"])]
    labels = _labels(results)
    depths = sorted(int(h) for h in profiles["depth"].unique())
    ncols = min(4, len(specs))
    nrows = -(-len(specs) // ncols)
    fig, axes, own = axes_grid(ax, nrows, ncols, (3.6 * ncols, 3.1 * nrows + 0.6), needed=len(specs),
                               sharex=True, sharey=True)
    length = int(profiles["length"].iloc[0])
    finite = profiles["log10_density"][np.isfinite(profiles["log10_density"])]
    floor = max(float(finite.min()) if len(finite) else -1.0, -CLIP_DECADES) - 1
    top = (float(finite.max()) if len(finite) else 0.0) + 0.5
    causal = profiles[(profiles["prior"] == "causal") & (profiles["depth"] == cfg.profile_depth)].sort_values("j")
    for ax, spec in zip(axes.flat, specs):
        rows = profiles[profiles["prior"] == spec]
        if len(causal) and spec != "causal":
            body = causal[causal["j"] < length]
            ax.plot(body["x"], body["log10_density"], "--", color="0.6", linewidth=1.2,
                    label=f"causal, $H = {cfg.profile_depth}$")
        clipped = 0
        for i, depth in enumerate(depths):
            mine = rows[rows["depth"] == depth].sort_values("j")
            body, last = mine[mine["j"] < length], mine[mine["j"] == length]
            density = body["log10_density"].to_numpy()
            clipped += int(np.sum(np.isfinite(density) & (density < floor)))
            kw = style.series(i, len(depths))
            _plot(ax, body["x"], density, label=f"$H = {depth}$", **kw)
            if len(last) and np.isfinite(last["log10_density"].iloc[0]):
                ax.plot([1.0], [last["log10_density"].iloc[0]], "o", color=kw["color"], markersize=4)
        ax.axhline(math.log10(cfg.dead_below), color="k", linestyle=":", linewidth=1, label="dead-zone threshold")
        gaps = bool(np.any(np.isneginf(rows.loc[rows["j"] < length, "log10_density"])))
        notes = ["gaps: influence exactly 0"] * gaps + ["identical to causal at every $H$"] * _same_as_causal(profiles, spec)
        ax.set_title(labels.get(spec, spec) + "".join(f"\n({note})" for note in notes), fontsize=9)
        ax.set_ylim(floor, top)
        style.annotate_clipping(ax, "y", floor, clipped, what="points")
    for ax in axes.flat[len(specs):]:
        ax.set_visible(False)
    for col in range(axes.shape[1]):  # the lowest drawn panel of each column
        shown = [ax for ax in axes[:, col] if ax.get_visible()]
        if shown:
            shown[-1].set_xlabel(r"position $x = j/L$")
            shown[-1].xaxis.set_tick_params(labelbottom=True)
    for ax in axes[:, 0]:
        ax.set_ylabel(f"{_DENSITY}  (uniform = 0)")
    legend_ax = axes.flat[min(1, len(specs) - 1)]
    handles, names = legend_ax.get_legend_handles_labels()
    if not own:
        legend_ax.legend(handles, names, fontsize=7)
        return fig
    fig.legend(handles, names, loc="lower center", ncol=len(names), bbox_to_anchor=(0.5, 0.0))  # inside the figure
    fig.suptitle(f"Step-0 influence on the last token under each attention prior "
                 f"($L = {length}$, {cfg.schedule_label}; dots: last token)")
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig


@style.styled
def valley_figure(results, cfg, *, ax=None):
    """Figure 2: middle density and dead share against depth H, one line per prior; returns the Figure.

    ``ax``: two Axes (middle density, dead share).
    """
    fig, axes, own = axes_grid(ax, 1, 2, (13, 4.8))
    mid_ax, dead_ax = axes.flat[0], axes.flat[1]
    middle_all = results["log10_middle_density"].to_numpy(dtype=float)
    finite = middle_all[np.isfinite(middle_all)]
    floor = (finite.min() if finite.size else 0.0) - 1.0
    zero_note = False
    specs = [s for s in cfg.priors if s in set(results["prior"])]
    for k, spec in enumerate(specs):
        mine = results[results["prior"] == spec].sort_values("depth")
        kw = style.series(k, len(specs))
        depths = mine["depth"].to_numpy()
        middle = mine["log10_middle_density"].to_numpy(dtype=float)
        label = mine["label"].iloc[0]
        _plot(mid_ax, depths, np.where(np.isfinite(middle), middle, np.nan), label=label, **kw)
        if np.any(~np.isfinite(middle)):
            zero_note = True
            mid_ax.plot(depths[~np.isfinite(middle)], np.full(int((~np.isfinite(middle)).sum()), floor),
                        linestyle="none", marker="v", markersize=8, color=kw["color"])
        _plot(dead_ax, depths, 100 * mine["dead_fraction"].to_numpy(dtype=float), label=label, **kw)
    mid_ax.axhline(math.log10(cfg.dead_below), color="k", linestyle=":", linewidth=1)
    mid_ax.set_ylabel(f"{_DENSITY} at $x = 1/2$  (uniform = 0)")
    mid_ax.set_title("Middle of the context" + ("\n(triangles at the bottom: exactly 0)" if zero_note else ""))
    dead_ax.set_ylabel(f"dead positions (% of $j < L$ with $L\\,w_j < {cfg.dead_below:g}$)")
    dead_ax.set_ylim(-3, 103)
    dead_ax.set_title("Size of the dead zone")
    for ax in (mid_ax, dead_ax):
        ax.set_xlabel(r"depth $H$ (layers)")
        style.integer_ticks(ax, "x")
    style.mark_coincident(dead_ax)  # the legend is this panel's
    dead_ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    if own:
        fig.suptitle(f"Valley against depth ($L = {int(results['length'].iloc[0])}$, {cfg.schedule_label})")
        fig.tight_layout()
    return fig


def _share_text(percent: float) -> str:
    """A dead share as a reader tells it apart: "0%" only when none is dead, two significant digits below 1%."""
    if percent == 0:
        return "0%"
    return f"{percent:.2g}%" if percent < 1 else f"{percent:.1f}%"


@style.styled
def family_figure(results, cfg, *, ax=None):
    """Figure 3: dead share of each decoder family's prior at the profile depth (horizontal bars); returns the Figure."""
    at = results[results["depth"] == cfg.profile_depth]
    rows = [(name, r) for _, r in at.iterrows() if isinstance(r["family"], str) for name in r["family"].split("; ")]
    fig, ax, own = single_axes(ax, (8, 0.5 * max(len(rows), 1) + 1.6))
    names = [f"{name}\n{r['label']}" for name, r in rows]
    shares = [100 * float(r["dead_fraction"]) for _, r in rows]
    bars = ax.barh(range(len(rows)), shares, color=[style.color(i % 6) for i in range(len(rows))])
    for bar, share in zip(bars, shares):
        ax.text(bar.get_width() + 1, bar.get_y() + bar.get_height() / 2, _share_text(share), va="center", fontsize=8)
    ax.set_yticks(range(len(rows)), names, fontsize=7.5)
    ax.invert_yaxis()
    ax.set_xlim(0, 110)
    ax.set_xlabel(f"dead positions (% of $j < L$ with $L\\,w_j < {cfg.dead_below:g}$)")
    length = int(results["length"].iloc[0])
    ax.set_title(f"Dead zone of each family's Step-0 prior ($L = {length}$, $H = {cfg.profile_depth}$, "
                 f"{cfg.schedule_label})")
    if not rows:
        ax.text(0.5, 0.5, "no family prior in this sweep", transform=ax.transAxes, ha="center")
    if own:
        fig.tight_layout()
    return fig


def figures(tables: dict, cfg) -> dict:
    """{"fig1_profiles", "fig2_valley_vs_depth", "fig3_family_dead_zone"} -> Figure, from results and profiles."""
    results, profiles = tables["results"], tables["profiles"]
    return {
        "fig1_profiles": profiles_figure(profiles, results, cfg),
        "fig2_valley_vs_depth": valley_figure(results, cfg),
        "fig3_family_dead_zone": family_figure(results, cfg),
    }
