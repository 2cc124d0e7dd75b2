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
    Lines show j < L; a dot marks the last token (the recency delta).
    """
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
    ax.set_title(f"Step-0 influence on the last token ($a = {alpha:g}$, $L = {length}$)\n"
                 "dots: the last token (recency delta)")
    ax.legend(ncol=2)
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


def _bins(values: np.ndarray) -> np.ndarray:
    """Colour bin edges for log10 values: 0 and a 1-2-5 sequence up to the largest value."""
    top = float(values.max()) if values.size else 1.0
    edges = [0.0] + [m * 10.0 ** e for e in range(-1, 6) for m in (1, 2, 5)]
    cut = next(k for k, v in enumerate(edges) if v >= top) if top <= edges[-1] else len(edges) - 1
    edges = edges[:cut + 1]
    low = float(values.min()) if values.size else 0.0
    start = max(k for k, v in enumerate(edges) if v <= low) if low >= 0 else 0
    return np.array(edges[start:])


@style.styled
def peak_to_trough_heatmap(results, cfg=None, *, ax=None):
    """Figure 4: log10 (max_j w_j / min_j w_j) over a x H at the first L; returns the Figure.

    The colour shows the log10 value itself, in bins (1-2-5 steps) read off
    the colour bar; blank cells: ratio 1 or a zero entry (infinite ratio).
    """
    import matplotlib
    from matplotlib.colors import BoundaryNorm

    rows = _constant(results, continuum=False)
    alphas = _alphas(rows)
    depths = np.array(sorted(int(h) for h in rows["depth"].unique()), dtype=float)
    length = int(rows["length"].iloc[0])
    value = {(float(r.alpha), int(r.depth)): float(r.log10_peak_to_trough) for r in rows.itertuples()}
    grid = np.array([[value.get((a, int(h)), np.nan) for h in depths] for a in alphas], dtype=float)
    shown = np.isfinite(grid) & (grid > 0)
    bins = _bins(grid[shown])
    fig, ax, own = single_axes(ax, (8, 0.45 * len(alphas) + 2.4))
    cmap = matplotlib.colormaps["viridis"].resampled(len(bins) - 1)  # one colour per bin
    mesh = ax.pcolormesh(_edges(depths), np.arange(len(alphas) + 1), np.ma.masked_where(~shown, grid),
                         cmap=cmap, norm=BoundaryNorm(bins, cmap.N))
    style.log_count_axis(ax, "x")
    ax.set_yticks(np.arange(len(alphas)) + 0.5, [f"{a:g}" for a in alphas])
    ax.grid(False)
    ax.set_xlabel("depth $H$ (layers)")
    ax.set_ylabel("attention weight $a$")
    ax.set_title(f"Peak-to-trough ratio: largest / smallest $w_j$ ($L = {length}$; blank: ratio 1 or a zero entry)")
    bar = root_figure(ax).colorbar(mesh, ax=ax, ticks=bins)
    bar.set_label(r"$\log_{10}$ (peak / trough), binned")
    bar.ax.set_yticklabels([f"{b:g}" for b in bins])
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
