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


@style.styled
def peak_to_trough_heatmap(results, cfg=None, *, ax=None):
    """Figure 4: the peak-to-trough ratio max_j w_j / min_j w_j over a x H at the first L; returns the Figure.

    The colour is linear in decades (log10 of the ratio on a linear colour scale from 0 to the next
    whole decade; colour-bar ticks 10^k), and each cell shows its ratio as 10^v with v to two decimals,
    so cells of nearby ratios are told apart by the number, not by the colour alone. Blank cells: ratio 1
    (log10 = 0) or a zero entry (infinite ratio), said in the cell.
    """
    from matplotlib.colors import Normalize
    from matplotlib.ticker import FixedLocator, FuncFormatter

    rows = _constant(results, continuum=False)
    alphas = _alphas(rows)
    depths = np.array(sorted(int(h) for h in rows["depth"].unique()), dtype=float)
    length = int(rows["length"].iloc[0])
    value = {(float(r.alpha), int(r.depth)): float(r.log10_peak_to_trough) for r in rows.itertuples()}
    grid = np.array([[value.get((a, int(h)), np.nan) for h in depths] for a in alphas], dtype=float)
    shown = np.isfinite(grid) & (grid > 0)
    top = max(1.0, float(np.ceil(grid[shown].max()))) if shown.any() else 1.0
    norm = Normalize(0.0, top)
    fig, ax, own = single_axes(ax, (8, 0.55 * len(alphas) + 2.4))
    edges = _edges(depths)
    mesh = ax.pcolormesh(edges, np.arange(len(alphas) + 1), np.ma.masked_where(~shown, grid), cmap="viridis",
                         norm=norm)
    cmap = mesh.get_cmap()
    for i in range(len(alphas)):
        for k, h in enumerate(depths):
            v = grid[i, k]
            centre = float(np.sqrt(edges[k] * edges[k + 1]))
            if shown[i, k]:
                light = sum(cmap(norm(v))[:3]) / 3 > 0.5
                text = f"$10^{{{v:.2f}}}$"
            else:
                light, text = True, "1" if v == 0 else ("\u221e" if np.isinf(v) else "")
            ax.text(centre, i + 0.5, text, ha="center", va="center", fontsize=7,
                    color="black" if light else "white")
    style.log_count_axis(ax, "x")
    ax.set_yticks(np.arange(len(alphas)) + 0.5, [f"{a:g}" for a in alphas])
    ax.grid(False)
    ax.set_xlabel("depth $H$ (layers)")
    ax.set_ylabel("attention weight $a$")
    ax.set_title(f"Peak-to-trough ratio: largest / smallest $w_j$ ($L = {length}$)")
    step = max(1, int(np.ceil(top / 8)))
    bar = root_figure(ax).colorbar(mesh, ax=ax)
    bar.ax.yaxis.set_major_locator(FixedLocator(np.arange(0, top + 0.5, step)))
    bar.ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"$10^{{{int(round(y))}}}$"))
    bar.set_label("peak / trough (colour linear in decades)")
    if own:
        fig.tight_layout()
    return fig


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
