"""Step-0 figures: measured influence vs theory, variants, pathways, a_l, attention heatmaps.

``summaries`` maps (preset, variant) to the step-0 experiment's summary dicts
(lostmid_jax.experiments.step0): length, depth, seeds, paths (total / value /
score: p, p_sem, norms, norms_sem), theory rows, fitted a, alphas and the
optional attention heatmap.
"""

from __future__ import annotations

import pathlib

import numpy as np
from matplotlib.colors import LogNorm
from matplotlib.ticker import MaxNLocator

from . import COLORS
from ._layout import axes_grid, save
from ..theory import positions

_STYLES = ["-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (8, 2))]


def _density(ax, x, values, sem=None, *, color, label, style="-", band=True):
    """Plot L * values over x (j < L as a line, j = L as a marker), with a +-2 SEM band."""
    scale = x.size
    ax.plot(x[:-1], scale * values[:-1], linestyle=style, color=color, label=label, lw=1.4)
    solid = style == "-"
    ax.plot(x[-1:], scale * values[-1:], "o" if solid else "s", color=color, ms=6, mfc=color if solid else "none")
    if sem is not None and band:
        lo = np.clip(values - 2 * sem, values * 1e-3, None)
        ax.fill_between(x[:-1], scale * lo[:-1], scale * (values + 2 * sem)[:-1], color=color, alpha=0.25, lw=0)


def _setup(ax, title, ylabel="influence density  L p_j  (log)"):
    ax.set_yscale("log")
    ax.set_xlabel("normalized input position x = j / L")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3, which="both", lw=0.5)
    ax.legend(fontsize=8)


def overlay(name: str, summaries: dict, *, ax=None):
    """Four panels for one preset: native vs theory, variants, pathways, measured a_l; returns the Figure.

    ``ax``: four Axes (a 2 x 2 grid or a flat sequence, in reading order).
    """
    variants = [(v, s) for (n, v), s in summaries.items() if n == name]
    native = dict(variants).get("native", variants[0][1])
    x = positions(native["length"])
    fig, axes, own = axes_grid(ax, 2, 2, (12, 8.5))
    axes = np.asarray(list(axes.flat[:4]), dtype=object).reshape(2, 2)
    ax = axes[0, 0]
    tot = native["paths"]["total"]
    _density(ax, x, tot["p"], tot["p_sem"], color=COLORS[0], label=f"measured ({native['seeds']} seed(s), band: +-2 SEM)")
    _density(ax, x, native["theory"]["measured"], color=COLORS[1], style="--", label="theory, measured a_l")
    _density(ax, x, native["theory"]["fitted"], color=COLORS[3], style=":", label=f"theory, fitted a = {native['a_fit']:.3f}")
    _setup(ax, f"{name}: ||dy_L/dx_j||_F vs theory (native)\nSpearman {native['spearman_measured']:.3f} / "
               f"{native['spearman_fitted']:.3f}, W1 {native['wasserstein_measured']:.3f} / "
               f"{native['wasserstein_fitted']:.3f} (measured a_l / fitted a); markers: j = L")
    ax = axes[0, 1]
    for color, style, (variant, s) in zip(COLORS, _STYLES, variants):
        _density(ax, x, s["paths"]["total"]["p"], s["paths"]["total"]["p_sem"], color=color, label=variant,
                 style=style, band=False)
    _setup(ax, f"{name}: position-encoding variants (total pathway)")
    ax = axes[1, 0]
    total_sum = native["paths"]["total"]["norms"].sum()
    for color, (pathway, prof) in zip(COLORS, native["paths"].items()):
        _density(ax, x, prof["norms"] / total_sum, prof["norms_sem"] / total_sum, color=color, label=pathway)
    _setup(ax, f"{name}: value vs score pathway (native), scaled by the total's sum\n"
               f"median score/total over j < L: {native['score_fraction_median']:.2e} (nan: not measured)")
    ax = axes[1, 1]
    for color, (variant, s) in zip(COLORS, variants):
        layers = np.arange(1, s["depth"] + 1)
        ax.errorbar(layers, s["alphas"], yerr=2 * s["alphas_sem"], color=color, marker="o", ms=3, capsize=2, label=variant)
    ax.axhline(native["a_fit"], color="grey", ls=":", label=f"fitted constant a (native) = {native['a_fit']:.3f}")
    ax.set_xlabel("layer l")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("a_l = E ||attn|| / (||resid|| + ||attn||)")
    ax.set_ylim(0, 1)
    ax.set_title(f"{name}: measured effective attention strength (+-2 SEM)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    if own:
        fig.tight_layout()
    return fig


def heatmap(name: str, summary: dict, heads: int = 3, *, ax=None):
    """Attention probabilities A[query, key] (log colour, cividis) of chosen layers and heads.

    Positions are 1-based (query i, key j = 1..L), layers and heads too.
    ``ax``: a grid [layers, heads shown] of Axes (a flat sequence is one row).

    Returns:
      The Figure, or None when the summary holds no heatmap.
    """
    if summary.get("heat") is None:
        return None
    layers, probs = summary["heat"]  # [layers] 0-based layer indices, [layers, N, L, L]
    shown = min(heads, probs.shape[1])
    fig, axes, own = axes_grid(ax, len(layers), shown, (3.4 * shown + 1.4, 3.2 * len(layers)), layout="constrained")
    length = probs.shape[-1]
    extent = (0.5, length + 0.5, length + 0.5, 0.5)  # pixel k covers position k + 1
    positive = probs[probs > 0]
    norm = LogNorm(vmin=max(float(positive.min()), 1e-6), vmax=float(positive.max()))
    for r, layer in enumerate(layers):
        for c in range(shown):
            ax = axes[r, c]
            a = np.ma.masked_less_equal(probs[r, c], 0)
            im = ax.imshow(a, cmap="cividis", norm=norm, interpolation="nearest", origin="upper", extent=extent)
            ax.set_title(f"layer {int(layer) + 1}, head {c + 1}", fontsize=9)
            if r == len(layers) - 1:
                ax.set_xlabel("key position j")
            if c == 0:
                ax.set_ylabel("query position i")
    fig.colorbar(im, ax=list(axes[:len(layers), :shown].flat), shrink=0.9,
                 label="attention probability A_ij (log scale; uniform causal = 1/i)")
    if own:
        fig.suptitle(f"{name} (native) at initialization: attention on the first {length} positions", fontsize=11)
    return fig


def all_figures(summaries: dict, run_dir: pathlib.Path) -> list[pathlib.Path]:
    """overlay_<preset>.png and heatmap_<preset>.png for every preset; returns their paths."""
    run_dir = pathlib.Path(run_dir)
    out = []
    for name in dict.fromkeys(n for n, _ in summaries):
        out.append(save(overlay(name, summaries), run_dir / f"overlay_{name}.png", dpi=130))
        native = summaries.get((name, "native")) or next(s for (n, _), s in summaries.items() if n == name)
        fig = heatmap(name, native)
        if fig is not None:
            out.append(save(fig, run_dir / f"heatmap_{name}.png", dpi=120))
    return out
