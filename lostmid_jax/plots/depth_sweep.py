"""The depth sweep's four figures, drawn from its result records and rows.

``cfg`` is any object with the sweep's ``lengths``, ``depths``, ``alphas``
and ``band`` (lostmid_jax.experiments.depth_sweep.Config); records are its
dicts, whose continuum rows have ``length == CONTINUUM``.
"""

from __future__ import annotations

import math
import pathlib

import numpy as np

from . import COLORS
from ._layout import axes_grid, save, single_axes
from ..theory import log_influence_row, positions

CONTINUUM = "continuum"
"""The ``length`` of the sweep's continuum (L -> infinity) records."""


def pick_evenly(values, count: int) -> list:
    """Up to ``count`` of the distinct ``values``, sorted: ranks spaced geometrically from the first to the last.

    >>> pick_evenly(range(1, 65), 6)
    [1, 2, 5, 12, 28, 64]
    """
    values = sorted(set(values))
    if len(values) <= count:
        return values
    idx = np.unique(np.round(np.geomspace(1, len(values), count)).astype(int) - 1)
    return [values[i] for i in idx]


def u_curves(cfg, alpha: float, *, ax=None):
    """Figure 1: log10 of L * w_j against x = j/L for several H (one a); returns the Figure."""
    fig, ax, own = single_axes(ax, (7, 4.5))
    length = cfg.lengths[0]
    x = positions(length)
    shallow = [h for h in cfg.depths if h <= 64] or list(cfg.depths)
    for color, depth in zip(COLORS, pick_evenly(shallow, 7)):
        log10_density = (log_influence_row(length, depth, alpha) + math.log(length)) / math.log(10)
        ax.plot(x[:-1], log10_density[:-1], color=color, label=f"H={depth}")
        ax.plot([1.0], [log10_density[-1]], "o", color=color, markersize=5)
    ax.set_xlabel("normalized position x = j / L")
    ax.set_ylabel("log10 influence density  L * w_j")
    ax.set_title(f"Step-0 influence on the last token (a={alpha:g}, L={length})\ndots: the last token (recency delta)")
    ax.legend(fontsize=8, ncol=2)
    ax.grid(alpha=0.3)
    if own:
        fig.tight_layout()
    return fig


def middle_vs_depth(records: list[dict], cfg, *, ax=None):
    """Figure 2: log10 rho_H(1/2) against H for each constant a, with both laws.

    Left: the exact mixture (solid), the geometric x exp(sqrt) asymptotic
    (dotted) and the factorial law (dashed). Right: log10 of exact / law.
    ``ax``: two Axes (left, right). Returns the Figure.
    """
    fig, axes, own = axes_grid(ax, 1, 2, (12, 4.8))
    ax, ratio = axes.flat[0], axes.flat[1]
    rows = [r for r in records if r["length"] == CONTINUUM and r["schedule"] == "constant"]
    for color, a in zip(COLORS, sorted(set(float(a) for a in cfg.alphas))):
        mine = sorted((r for r in rows if r["alpha"] == a), key=lambda r: r["depth"])
        depths = [r["depth"] for r in mine]
        middle = [r["log10_middle_density"] for r in mine]
        ax.plot(depths, middle, "-", color=color, label=f"exact mixture, a={a:g}")
        ratio.plot(depths, [m - r["log10_factorial_law"] for m, r in zip(middle, mine)], "--", color=color, label=f"a={a:g} / factorial law")
        geo = [(r["depth"], r["log10_geometric_law"], r["log10_middle_density"]) for r in mine if not math.isnan(r["log10_geometric_law"])]
        if geo:
            ax.plot([g[0] for g in geo], [g[1] for g in geo], ":", color="k", linewidth=1)
            ratio.plot([g[0] for g in geo], [g[2] - g[1] for g in geo], ":", color=color, linewidth=2, label=f"a={a:g} / geometric law")
    law = sorted({(r["depth"], r["log10_factorial_law"]) for r in rows})
    ax.plot(*zip(*law), "k--", label="(ln 2)^(H-1)/(H-1)!  (factorial law)")
    ax.plot([], [], "k:", linewidth=1, label="(1-a)^H exp(2 sqrt(H a ln2/(1-a))) asymptotic")
    for a_ in (ax, ratio):
        a_.set_xscale("log")
        a_.set_xlabel("depth H (layers)")
        a_.grid(alpha=0.3)
    ax.set_ylabel("log10 middle density  rho_H(1/2)")
    ax.set_title("Middle of the context (x = 1/2), continuum limit")
    bottom = max(min(r["log10_middle_density"] for r in rows if math.isfinite(r["log10_middle_density"])), -80)
    ax.set_ylim(bottom=bottom - 5, top=2)
    ax.legend(fontsize=7, loc="lower left")
    ratio.axhline(0.0, color="grey", linewidth=0.8)
    ratio.set_yscale("symlog", linthresh=0.1)
    ratio.set_ylabel("log10 (exact / law)")
    ratio.set_title("Which law holds: 0 means exact = law")
    ratio.legend(fontsize=7, ncol=2, loc="upper left")
    if own:
        fig.tight_layout()
    return fig


def mass_shares(records: list[dict], cfg, *, ax=None):
    """Figure 3: recency / primacy / middle / late mass against H, one panel per a.

    ``ax``: one Axes per distinct a in ``cfg.alphas``. Returns the Figure.
    """
    alphas = sorted(set(float(a) for a in cfg.alphas))
    length = cfg.lengths[0]
    fig, axes, own = axes_grid(ax, 1, len(alphas), (3.2 * len(alphas), 3.6), sharey=True)
    panels = list(axes.flat[:len(alphas)])
    parts = [("primacy_mass", f"primacy x<={cfg.band:g}"), ("middle_mass", "middle"), ("late_mass", f"late x>={1 - cfg.band:g}"), ("recency_weight", "recency (last token)")]
    for ax, a in zip(panels, alphas):
        mine = sorted((r for r in records if r["length"] == length and r["schedule"] == "constant" and r["alpha"] == a), key=lambda r: r["depth"])
        depths = [r["depth"] for r in mine]
        ax.stackplot(depths, *[[r[key] for r in mine] for key, _ in parts], labels=[lab for _, lab in parts], colors=COLORS[:4], alpha=0.85)
        ax.set_xscale("log")
        ax.set_xlim(min(depths), max(depths))
        ax.set_title(f"a={a:g}")
        ax.set_xlabel("depth H")
        ax.set_ylim(0, 1)
    panels[0].set_ylabel(f"share of influence (L={length})")
    panels[-1].legend(fontsize=7, loc="lower right")
    if own:
        fig.suptitle("Where the last token's influence comes from")
        fig.tight_layout()
    return fig


def peak_to_trough_heatmap(records: list[dict], cfg, *, ax=None):
    """Figure 4: log10 peak-to-trough (discrete L) over a x H, log colour scale; returns the Figure."""
    from matplotlib.colors import LogNorm

    alphas = sorted(set(float(a) for a in cfg.alphas))
    depths = sorted(set(cfg.depths))
    length = cfg.lengths[0]
    value = {(r["alpha"], r["depth"]): r["log10_peak_to_trough"] for r in records if r["length"] == length and r["schedule"] == "constant"}
    grid = np.array([[value[(a, h)] for h in depths] for a in alphas], dtype=float)
    grid = np.ma.masked_where(~np.isfinite(grid) | (grid <= 0), grid)
    h = np.asarray(depths, dtype=float)
    h_edges = np.concatenate([[h[0] / 1.2], np.sqrt(h[1:] * h[:-1]), [h[-1] * 1.2]]) if h.size > 1 else np.array([h[0] / 1.2, h[0] * 1.2])
    fig, ax, own = single_axes(ax, (8, 0.45 * len(alphas) + 2.4))
    mesh = ax.pcolormesh(h_edges, np.arange(len(alphas) + 1), grid, cmap="viridis", norm=LogNorm())
    ax.set_xscale("log")
    ax.set_yticks(np.arange(len(alphas)) + 0.5, [f"{a:g}" for a in alphas])
    ax.set_xlabel("depth H (layers)")
    ax.set_ylabel("attention weight a")
    ax.set_title(f"log10 peak-to-trough  max_j w_j / min_j w_j  (L={length}; blank: ratio 1 or a zero entry)")
    fig.colorbar(mesh, ax=ax, label="log10 ratio (log colour scale)")
    if own:
        fig.tight_layout()
    return fig


def all_figures(records: list[dict], cfg, run_dir: pathlib.Path) -> list[pathlib.Path]:
    """Write the four figures into ``run_dir`` (fig1_u_curves.png ... fig4_peak_to_trough.png); return their paths."""
    run_dir = pathlib.Path(run_dir)
    alpha = 0.5 if 0.5 in cfg.alphas else float(cfg.alphas[len(cfg.alphas) // 2])
    return [
        save(u_curves(cfg, alpha), run_dir / "fig1_u_curves.png", dpi=130),
        save(middle_vs_depth(records, cfg), run_dir / "fig2_middle_vs_depth.png", dpi=130),
        save(mass_shares(records, cfg), run_dir / "fig3_mass_shares.png", dpi=130),
        save(peak_to_trough_heatmap(records, cfg), run_dir / "fig4_peak_to_trough.png", dpi=130),
    ]
