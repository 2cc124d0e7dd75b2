"""The depth sweep's four figures, drawn only from its saved tables.

``results`` is results.csv and ``profiles`` is profiles.csv as pandas
DataFrames (what ``lostmid_jax.runs.load_run`` returns; continuum rows have
``continuum`` True and an empty ``length``); ``cfg`` is any object with the
sweep's ``band`` (lostmid_jax.experiments.depth_sweep.Config).

Values already in log10 go on linear axes labelled $\\log_{10}$; raw H goes on
log axes. Figure 2 annotates what its lower limit clips, and names the curves
that coincide (a = 1 and the factorial law).
"""

from __future__ import annotations

import matplotlib
import numpy as np

from . import style
from ._layout import axes_grid, root_figure, single_axes

CLIP_DECADES = 80
"""Figure 2's left panel shows at most this many decades below 1 (plus a margin of 5)."""


def _constant(results, continuum: bool):
    """The constant-a rows of ``results``, continuum or at the first (smallest listed) discrete L."""
    rows = results[(results["schedule"] == "constant") & (results["continuum"].astype(bool) == continuum)]
    if not continuum and len(rows):
        rows = rows[rows["length"] == rows["length"].iloc[0]]
    return rows


def _alphas(rows) -> list[float]:
    return sorted(float(a) for a in rows["alpha"].unique())


@style.styled
def u_curves(profiles, *, ax=None):
    """Figure 1: log10 (L w_j) against x = j/L, one curve per H (one a, one L); returns the Figure.

    ``profiles``: profiles.csv (alpha, depth, length, j, x, log10_density).
    Lines show j < L; a dot marks the last token (the recency delta), with its own legend entry.
    """
    from matplotlib.lines import Line2D

    fig, ax, own = single_axes(ax, (7, 4.5))
    alpha, length = float(profiles["alpha"].iloc[0]), int(profiles["length"].iloc[0])
    depths = sorted(int(h) for h in profiles["depth"].unique())
    for i, depth in enumerate(depths):
        rows = profiles[profiles["depth"] == depth].sort_values("j")
        body, last = rows[rows["j"] < length], rows[rows["j"] == length]
        kw = style.series(i, len(depths))
        ax.plot(body["x"], body["log10_density"], label=f"$H = {depth}$", **kw)
        ax.plot(last["x"], last["log10_density"], "o", color=kw["color"], markersize=5)
    ax.set_xlabel(r"normalized position $x = j/L$")
    ax.set_ylabel(r"$\log_{10}(L\,w_j)$  (influence density)")
    ax.set_title(f"Step-0 influence on the last token ($a = {alpha:g}$, $L = {length}$)")
    handles, labels = ax.get_legend_handles_labels()
    dot = Line2D([], [], linestyle="none", marker="o", markersize=5, color="0.3")
    ax.legend([*handles, dot], [*labels, "dots: the last token $j = L$\n(recency delta), colour of its $H$"], ncol=2)
    if own:
        fig.tight_layout()
    return fig


@style.styled
def middle_vs_depth(results, cfg=None, *, ax=None):
    """Figure 2: the middle density against H for each constant a, and which law holds.

    Left: log10 rho_H(1/2) (continuum), the factorial law (ln 2)^(H-1)/(H-1)!
    and the geometric asymptotic (1-a)^H exp(2 sqrt(H a ln2/(1-a))), clipped
    at :data:`CLIP_DECADES` (annotated). Middle: log10 of exact / factorial
    law (linear axis). Right: exact / geometric law as a plain ratio (linear
    axis, 1 = the law holds). ``ax``: three Axes. Returns the Figure.
    """
    fig, axes, own = axes_grid(ax, 1, 3, (15, 6.0))
    left, fact, geo = axes.flat[0], axes.flat[1], axes.flat[2]
    rows = _constant(results, continuum=True)
    alphas = _alphas(rows)
    law = rows.drop_duplicates("depth").sort_values("depth")
    left.plot(law["depth"], law["log10_factorial_law"], color="k", linestyle="--", linewidth=1.4,
              label=r"factorial law $(\ln 2)^{H-1}/(H-1)!$")
    n_shown = 0
    for i, a in enumerate(alphas):
        mine = rows[rows["alpha"] == a].sort_values("depth")
        kw = style.series(i, len(alphas))
        left.plot(mine["depth"], mine["log10_middle_density"], label=rf"exact $\rho_H(1/2)$, $a = {a:g}$", **kw)
        fact.plot(mine["depth"], mine["log10_middle_density"] - mine["log10_factorial_law"],
                  label=f"$a = {a:g}$", **kw)
        with_law = mine[np.isfinite(mine["log10_geometric_law"].astype(float))]
        if len(with_law):
            left.plot(with_law["depth"], with_law["log10_geometric_law"], color="k", linestyle=":", linewidth=1)
            ratio = 10.0 ** (with_law["log10_middle_density"] - with_law["log10_geometric_law"])
            geo.plot(with_law["depth"], ratio, label=f"$a = {a:g}$", **kw)
            n_shown += 1
    left.plot([], [], color="k", linestyle=":", linewidth=1,
              label=r"geometric law $(1-a)^H e^{2\sqrt{H a \ln 2/(1-a)}}$")
    style.mark_coincident(left, rtol=1e-9, atol=1e-9)
    _clip_left(left, rows)
    for panel in (left, fact, geo):
        style.log_count_axis(panel, "x")
        panel.set_xlabel("depth $H$ (layers)")
    left.set_ylabel(r"$\log_{10}$ middle density $\rho_H(1/2)$")
    left.set_title("Middle of the context ($x = 1/2$), continuum limit")
    left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14))
    fact.axhline(0.0, color="0.5", linewidth=0.8)
    fact.set_ylabel(r"$\log_{10}$ (exact / factorial law)")
    fact.set_title("Factorial law: 0 means exact = law")
    fact.legend(loc="upper left")
    geo.axhline(1.0, color="0.5", linewidth=0.8)
    geo.set_ylabel("exact / geometric law (ratio)")
    geo.set_title("Geometric law ($0 < a < 1$): 1 means exact = law")
    dropped = sorted({int(h) for h in rows["depth"]} - {int(h) for h in rows[np.isfinite(
        rows["log10_geometric_law"].astype(float))]["depth"]})
    if dropped and n_shown:  # said under the panel, where it hides no data
        geo.set_xlabel(f"depth $H$ (layers)\nnot shown: $H = {', '.join(map(str, dropped))}$ (the law needs "
                       "$H \\geq 2$)" + ("; $a = 1$ (no geometric law)" if any(a >= 1 for a in alphas) else ""))
    if n_shown:
        geo.legend(loc="lower right")
    else:
        geo.text(0.5, 0.5, "no constant $0 < a < 1$ with $H \\geq 2$ swept", transform=geo.transAxes,
                 ha="center", va="center")
    if own:
        fig.tight_layout()
    return fig


def _clip_left(ax, rows) -> None:
    """Lower limit of figure 2's left panel: the lowest finite value, but at most CLIP_DECADES + 5 below 1."""
    values = np.concatenate([rows["log10_middle_density"].to_numpy(float), rows["log10_factorial_law"].to_numpy(float),
                             rows["log10_geometric_law"].to_numpy(float)])
    finite = values[np.isfinite(values)]
    bottom = max(finite.min() if finite.size else -1.0, -CLIP_DECADES) - 5
    ax.set_ylim(bottom=bottom, top=2)
    shown = [np.asarray(ln.get_ydata(), float) for ln in ax.get_lines()]
    below = int(sum(np.count_nonzero(y < bottom) for y in shown))  # -inf (a zero middle) counts too
    lowest = min((y[np.isfinite(y)].min() for y in shown if np.isfinite(y).any()), default=bottom)
    style.annotate_clipping(ax, "y", bottom, below, note=f"lowest: {lowest:.0f}".replace("-", "\u2212"))


@style.styled
def mass_shares(results, cfg, *, ax=None):
    """Figure 3: primacy / middle / late / recency mass against H at the first L, one panel per constant a.

    ``ax``: one Axes per constant a in ``results``. Returns the Figure.
    """
    rows = _constant(results, continuum=False)
    alphas = _alphas(rows)
    length = int(rows["length"].iloc[0])
    fig, axes, own = axes_grid(ax, 1, len(alphas), (3.2 * len(alphas), 3.6), sharey=True)
    panels = list(axes.flat[:len(alphas)])
    band = float(cfg.band)
    parts = [("primacy_mass", f"primacy $x \\leq {band:g}$"), ("middle_mass", "middle"),
             ("late_mass", f"late $x \\geq {1 - band:g}$"), ("recency_weight", "recency (last token)")]
    for ax, a in zip(panels, alphas):
        mine = rows[rows["alpha"] == a].sort_values("depth")
        ax.stackplot(mine["depth"], *[mine[key] for key, _ in parts], labels=[lab for _, lab in parts],
                     colors=style.PALETTE[:4], alpha=0.85)
        style.log_count_axis(ax, "x")
        ax.set_xlim(mine["depth"].min(), mine["depth"].max())
        ax.set_title(f"$a = {a:g}$")
        ax.set_xlabel("depth $H$")
        ax.set_ylim(0, 1)
    panels[0].set_ylabel(f"share of influence ($L = {length}$)")
    panels[-1].legend(loc="lower right")
    if own:
        fig.suptitle("Where the last token's influence comes from")
        fig.tight_layout()
    return fig


def _edges(values: np.ndarray) -> np.ndarray:
    """Cell edges around sorted positive ``values`` on a log axis (geometric midpoints)."""
    if values.size == 1:
        return np.array([values[0] / 1.2, values[0] * 1.2])
    return np.concatenate([[values[0] / 1.2], np.sqrt(values[1:] * values[:-1]), [values[-1] * 1.2]])


CELL_PAD = 0.9
"""A value is written in a cell only when its text takes at most this share of the cell's width and height."""


def _decade_norm(decades: np.ndarray):
    """LogNorm over the positive decade counts (log10 of the ratio): colour by the log of the log, so a ratio
    of 10^3 and one of 10^30 differ as much as 10^30 and 10^300."""
    from matplotlib.colors import LogNorm

    positive = decades[np.isfinite(decades) & (decades > 0)]
    if not positive.size:
        return LogNorm(0.1, 1.0)
    low, high = float(positive.min()), float(positive.max())
    if high <= low * 1.01:
        low, high = low / 1.5, high * 1.5
    return LogNorm(low, high)


def _fitting(extent, ax, x0: float, x1: float, i: int, candidates) -> str | None:
    """The first of ``candidates`` whose extent (``extent(text)`` -> (width, height) px) fits the cell
    [x0, x1] x [i, i + 1] (data units) within :data:`CELL_PAD` of its width and height, or None."""
    (px0, py0), (px1, py1) = ax.transData.transform([(x0, i), (x1, i + 1)])
    width, height = abs(px1 - px0) * CELL_PAD, abs(py1 - py0) * CELL_PAD
    for text in candidates:
        w, h = extent(text)
        if w <= width and h <= height:
            return text
    return None


def _extent_of(fig, fontsize: float):
    """text -> its rendered (width, height) in pixels at ``fig``'s dpi; texts alike but for their digits are
    measured once (the font's digits share one width)."""
    import re

    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.font_manager import FontProperties

    renderer = RendererAgg(1, 1, fig.dpi)
    prop = FontProperties(size=fontsize)
    cache = {}

    def extent(text: str) -> tuple[float, float]:
        key = re.sub("[0-9]", "0", text)
        if key not in cache:
            w, h, _ = renderer.get_text_width_height_descent(key, prop, ismath="$" in key)
            cache[key] = (w, h)
        return cache[key]

    return extent


@style.styled
def peak_to_trough_heatmap(results, cfg=None, *, ax=None):
    """Figure 4: the peak-to-trough ratio max_j w_j / min_j w_j over a x H at the first L; returns the Figure.

    The ratios span hundreds of decades (10^2 at small H and a < 1, 10^848 at a = 1, H = 256), so the colour
    is the log of the log: v = log10(ratio) on a logarithmic colour scale, ticked at ratios 10^v. Each cell
    whose text fits (:data:`CELL_PAD`) shows its ratio as 10^v, to two decimals or, where that does not fit,
    to whole decades; narrower cells (the many depths between 2 and 64 on the log axis) are read by their
    colour, and results.csv holds every value. Grey cells: a ratio of 1 (a flat profile, "1") or a zero entry
    (infinite ratio, "inf"), named in the cell when it fits; the caption under the axis says how to read it.
    """
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    rows = _constant(results, continuum=False)
    alphas = _alphas(rows)
    depths = np.array(sorted(int(h) for h in rows["depth"].unique()), dtype=float)
    length = int(rows["length"].iloc[0])
    value = {(float(r.alpha), int(r.depth)): float(r.log10_peak_to_trough) for r in rows.itertuples()}
    grid = np.array([[value.get((a, int(h)), np.nan) for h in depths] for a in alphas], dtype=float)
    shown = np.isfinite(grid) & (grid > 0)
    norm = _decade_norm(grid)
    fig, ax, own = single_axes(ax, (9, 0.55 * len(alphas) + 3.0))
    edges = _edges(depths)
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="0.8")
    mesh = ax.pcolormesh(edges, np.arange(len(alphas) + 1), np.ma.masked_where(~shown, grid), cmap=cmap, norm=norm)
    style.log_count_axis(ax, "x")
    ax.set_yticks(np.arange(len(alphas)) + 0.5, [f"{a:g}" for a in alphas])
    ax.grid(False)
    ax.set_ylabel("attention weight $a$")
    ax.set_title(f"Peak-to-trough ratio: largest / smallest $w_j$ ($L = {length}$)")
    ax.set_xlabel("depth $H$ (layers)")
    ax.annotate(_CAPTION, xy=(0.5, 0.0), xycoords=ax.xaxis.label, xytext=(0, -3), textcoords="offset points",
                ha="center", va="top", fontsize="small")  # the caption, under the axis label
    bar = root_figure(ax).colorbar(mesh, ax=ax, extend="neither")
    ticks = _decade_ticks(norm.vmin, norm.vmax)
    bar.ax.yaxis.set_major_locator(FixedLocator(ticks))
    bar.ax.yaxis.set_minor_locator(NullLocator())
    bar.ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"$10^{{{y:g}}}$"))
    bar.set_label("peak / trough (log scale of its decades)")
    if own:
        fig.tight_layout()  # the cells' final size, which decides what fits
    _write_cells(ax, grid, shown, edges, cmap, norm)
    return fig


def _write_cells(ax, grid, shown, edges, cmap, norm, fontsize: float = 7) -> None:
    """Each cell's ratio as 10^v (two decimals, else whole decades) or "1" / "inf", where it fits."""
    extent = _extent_of(root_figure(ax), fontsize)
    for i, k in zip(*np.nonzero(~np.isnan(grid))):
        v = grid[i, k]
        if shown[i, k]:
            light = sum(cmap(norm(v))[:3]) / 3 > 0.5
            text = _fitting(extent, ax, edges[k], edges[k + 1], i, [f"$10^{{{v:.2f}}}$", f"$10^{{{v:.0f}}}$"])
        else:
            light, text = True, _fitting(extent, ax, edges[k], edges[k + 1], i, ["1" if v == 0 else "inf"])
        if text is not None:
            ax.text(float(np.sqrt(edges[k] * edges[k + 1])), i + 0.5, text, ha="center", va="center",
                    fontsize=fontsize, color="black" if light else "white")


_CAPTION = ("colour: v = $\\log_{10}$(peak / trough) on a log scale (the log of the log);\n"
            "a cell shows $10^v$ where it fits (v to two decimals, or whole in narrow cells), else read its colour\n"
            "or results.csv (log10_peak_to_trough); grey: ratio 1 (flat profile) or infinite (a zero weight)")


def _decade_ticks(low: float, high: float) -> list[float]:
    """Colour-bar ticks between ``low`` and ``high`` decades: 1, 2, 5 x 10^k, thinned to at most 8, plus either
    end (two decimals) where no tick is near it."""
    ticks = [m * 10.0 ** k for k in range(int(np.floor(np.log10(low))) - 1, int(np.ceil(np.log10(high))) + 1)
             for m in (1, 2, 5)]
    ticks = [t for t in ticks if low * (1 - 1e-9) <= t <= high * (1 + 1e-9)]
    while len(ticks) > 8:
        ticks = ticks[::2]
    span = np.log10(high / low) if high > low else 1.0
    for end, inward in ((low, np.ceil), (high, np.floor)):  # the ends, to two decimals inside the scale
        if all(abs(np.log10(end / t)) > 0.12 * span for t in ticks):
            ticks.append(float(inward(end * 100) / 100))
    return sorted(ticks)


FIGURES = ("fig1_u_curves", "fig2_middle_vs_depth", "fig3_mass_shares", "fig4_peak_to_trough")
"""The figure names (file stems) that :func:`figures` returns, in order."""


def figures(tables: dict, cfg) -> dict:
    """{name: Figure} of the four figures, from ``tables`` ({"results": ..., "profiles": ...} DataFrames)."""
    results, profiles = tables["results"], tables["profiles"]
    return {
        "fig1_u_curves": u_curves(profiles),
        "fig2_middle_vs_depth": middle_vs_depth(results, cfg),
        "fig3_mass_shares": mass_shares(results, cfg),
        "fig4_peak_to_trough": peak_to_trough_heatmap(results, cfg),
    }
