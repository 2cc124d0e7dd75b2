"""Figures of a trained model's diagnosis: accuracy by the fact's passage, attention received, the heat map
of attention against uniform, and the influence profile against the architecture's prior.

    accuracy_by_passage(acc)          # acc: DataFrame of (length,) passage, accuracy(_lo/_hi), exact(_lo/_hi), chance
    attention_by_layer(att)           # att: DataFrame of layer, x, raw, vs_uniform (head means)
    attention_heatmap(ratio)          # ratio [Q, K]: |S_i| A_ij (i A_ij under the causal mask), binned; NaN off the mask
    influence_vs_prior(prof)          # prof: DataFrame of x, trained, trained_sem, step0, prior

Each returns its Figure and accepts ``ax=`` (:mod:`lostmid_jax.plots`).
Values on a log axis are the raw values (never their log10). The heat map's
colour scale diverges at 1 (uniform attention over the mask) on a log scale
symmetric around it: blue below, red above, a factor f above as dark as the
same factor below; values beyond its ends are drawn at the end colours and
the colour bar says how many.
"""

from __future__ import annotations

import matplotlib
import numpy as np

from ._layout import axes_grid, single_axes, wrapped
from .scales import RATIO_CMAP, error_lengths, ratio_axis, ratio_colorbar_ticks, ratio_limit, ratio_norm
from .style import annotate_clipping, color, series, styled

PROFILE_SPAN = 1e6
"""The influence figure's y range spans at most this factor below its largest value (smaller values are
clipped, and the figure says how many)."""
HEAT_TOP = 4.0
"""Default widest factor of the heat map's colour scale, [1/4, 4] (bins beyond are drawn at its ends, and the
colour bar says how many)."""


@styled
def accuracy_by_passage(acc, *, baselines=None, ax=None, title: str | None = None):
    """Multiple-choice accuracy (solid) and greedy exact match (dashed, open markers) per passage p = 1..k with
    Wilson 95% intervals, one colour per prompt length T (column ``length``; absent: one length); ``baselines``
    (rows condition, accuracy, accuracy_lo, accuracy_hi: closed-book, oracle) as horizontal lines with their
    interval as a band."""
    fig, ax, own = single_axes(ax, (6.0, 3.3), layout="constrained")
    lengths = sorted(set(int(t) for t in acc["length"])) if "length" in acc else [None]
    offsets = np.linspace(-0.15, 0.15, 2 * len(lengths)) if len(lengths) > 1 else np.array([-0.04, 0.04])
    for n, length in enumerate(lengths):
        rows = acc if length is None else acc[acc["length"] == length]
        p = np.asarray(rows["passage"], float)
        for m, (name, label) in enumerate((("accuracy", "multiple choice"), ("exact", "exact match"))):
            y = np.asarray(rows[name], float)
            err = error_lengths(y, rows[f"{name}_lo"], rows[f"{name}_hi"])
            text = label if length is None else f"{label}, T = {length}"
            ax.errorbar(p + offsets[2 * n + m], y, yerr=err, capsize=2.5, color=color(n), label=text,
                        linestyle="-" if m == 0 else "--", marker="o" if m == 0 else "s",
                        markerfacecolor=color(n) if m == 0 else "none")
    chance = float(np.asarray(acc["chance"], float)[0])
    ax.axhline(chance, color="0.4", linestyle=":", linewidth=1, label=f"chance ({chance:.2f})")
    _baseline_bands(ax, baselines)
    ax.set(xlabel="passage holding the fact, p", ylabel="rate (95% Wilson interval)", ylim=(-0.02, 1.02),
           xticks=sorted(set(np.asarray(acc["passage"], int))))
    if own:  # beside the axes, where it hides no interval
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=6.5)
    else:
        ax.legend(loc="best", fontsize=6.5)
    if title:
        ax.set_title(wrapped(title, fig.get_figwidth() * 0.8))
    return fig


def _baseline_bands(ax, baselines) -> None:
    """One horizontal line per baseline row at its accuracy, its 95% interval shaded (NaN bounds: no band)."""
    if baselines is None:
        return
    styles = {"closed-book": ("tab:brown", "-."), "oracle": ("tab:olive", (0, (5, 1)))}
    for _, row in baselines.iterrows():
        shade, dash = styles.get(str(row["condition"]), ("0.3", "-."))
        y, lo, hi = (float(row[c]) for c in ("accuracy", "accuracy_lo", "accuracy_hi"))
        ax.axhline(y, color=shade, linestyle=dash, linewidth=1.1, label=f"{row['condition']} ({y:.2f})")
        if np.isfinite(lo) and np.isfinite(hi):
            ax.axhspan(max(lo, 0.0), min(hi, 1.0), color=shade, alpha=0.12, linewidth=0)


@styled
def attention_by_layer(att, *, ax=None, title: str | None = None):
    """Attention received per key position x = j/L for every layer (head mean): raw column mean (log axis)
    and the ratio to uniform attention over the mask (a log axis symmetric about 1 = uniform)."""
    fig, axes, own = axes_grid(ax, 1, 2, (9.0, 3.4), layout="constrained")
    layers = sorted(set(int(v) for v in att["layer"]))
    cmap = matplotlib.colormaps["viridis"]
    for n, layer in enumerate(layers):
        rows = att[att["layer"] == layer]
        shade = cmap(n / max(1, len(layers) - 1))
        kw = dict(color=shade, linewidth=1.1, label=f"layer {layer}" if len(layers) <= 8 or n in (0, len(layers) - 1)
                  else None)
        axes[0, 0].plot(rows["x"], rows["raw"], **kw)
        axes[0, 1].plot(rows["x"], rows["vs_uniform"], **kw)
    axes[0, 0].set(yscale="log", xlabel="key position x = j / L", ylabel=r"raw $(1/L)\sum_i A_{ij}$",
                   title="raw column mean (falls with j under a causal mask)")
    axes[0, 1].axhline(1.0, color="0.3", linestyle="--", linewidth=1, label="uniform")
    axes[0, 1].set(xlabel="key position x = j / L", ylabel="received / uniform over the mask (log scale)",
                   title="against uniform attention")
    ratio_axis(axes[0, 1], ratio_limit(att["vs_uniform"]) ** 1.08)  # symmetric about 1, a margin at the ends
    axes[0, 1].legend(loc="best", fontsize=6.5)
    if title:
        fig.suptitle(wrapped(title, fig.get_figwidth(), 11))
    return fig


@styled
def attention_heatmap(ratio, *, ax=None, title: str | None = None, top: float = HEAT_TOP):
    """|S_i| A_ij per (query bin, key bin) on a diverging log scale centred at 1 (uniform over the mask).

    The scale is symmetric on the log axis (:func:`.scales.ratio_norm`): from 1/m to m with m the largest
    factor by which a bin departs from 1 either way (at most ``top``), so an excess and an equal deficit are
    equally dark; the colour bar is ticked on both halves.

    Args:
      ratio: [Q, K] mean of |S_i| A_ij over the allowed pairs of each bin (NaN where none is allowed).
      top: the largest factor shown (> 1); bins beyond m or 1/m are drawn at the end colours (said on the
        colour bar), a bin of 0 at the low end.
    """
    ratio = np.asarray(ratio, float)
    if ratio.ndim != 2:
        raise ValueError(f"ratio must be a 2-D array [Q, K], got shape {ratio.shape}")
    if not top > 1:
        raise ValueError(f"top must be > 1, got {top!r}")
    fig, ax, own = single_axes(ax, (4.6, 3.8), layout="constrained")
    finite = ratio[np.isfinite(ratio)]
    norm, ticks = ratio_norm(finite, top)
    low, high = norm.vmin, norm.vmax
    above, below = int(np.sum(finite > high)), int(np.sum(finite < low))
    cmap = matplotlib.colormaps[RATIO_CMAP].with_extremes(bad="0.85")
    shown = np.clip(ratio, low, high)  # beyond the scale: the end colours (counted on the colour bar)
    image = ax.imshow(np.ma.masked_invalid(shown), cmap=cmap, norm=norm, origin="upper", interpolation="nearest",
                      extent=(0, 1, 1, 0), aspect="auto")
    label = r"$|S_i|\,A_{ij}$, log scale (1 = uniform; $i A_{ij}$ causal)"
    if above or below:
        label += "\n" + "; ".join(f"{n} bins {side} {_fmt(v)} drawn at it" for n, side, v in
                                  ((above, "above", high), (below, "below", low)) if n)
    bar = fig.colorbar(image, ax=ax, label=label, extend={(1, 1): "both", (1, 0): "max", (0, 1): "min"}.get(
        (bool(above), bool(below)), "neither"))
    ratio_colorbar_ticks(bar, ticks)
    ax.set(xlabel="key x = j / L", ylabel="query x = i / L")
    ax.grid(False)
    if title:
        ax.set_title(wrapped(title, fig.get_figwidth() * 0.8))
    return fig


def _fmt(value: float) -> str:
    return f"{value:.3g}"


@styled
def influence_vs_prior(prof, *, ax=None, title: str | None = None):
    """The trained model's normalized influence profile (mean +- SEM over examples), the same architecture's
    measured Step-0 profile and its theory prior, on a log axis over x = j/L."""
    fig, ax, own = single_axes(ax, (4.8, 3.4), layout="constrained")
    x = np.asarray(prof["x"], float)
    curves = (("trained", "trained model"), ("step0", "same architecture at Step 0"), ("prior", "Step-0 theory prior"))
    values = np.concatenate([np.asarray(prof[name], float) for name, _ in curves])
    top = float(np.nanmax(values)) if np.any(values > 0) else 1.0
    floor = top / PROFILE_SPAN
    for i, (name, label) in enumerate(curves):
        y = np.asarray(prof[name], float)
        ax.plot(x, np.where(y >= floor, y, np.nan), label=label, **series(i, 3, marker=False))
        sem = f"{name}_sem"
        if sem in prof:
            s = np.asarray(prof[sem], float)
            ax.fill_between(x, np.maximum(y - s, floor), np.maximum(y + s, floor), color=color(i), alpha=0.2,
                            linewidth=0)
    ax.set(yscale="log", xlabel="input position x = j / L", ylabel=r"$p_j = n_j / \sum_i n_i$")
    ax.set_ylim(floor, top * 2)
    annotate_clipping(ax, "y", floor, int(np.sum(values < floor)), note="zeros included")
    ax.legend(loc="best")
    if title:
        ax.set_title(wrapped(title, fig.get_figwidth() * 0.8))
    return fig


__all__ = ["HEAT_TOP", "PROFILE_SPAN", "accuracy_by_passage", "attention_by_layer", "attention_heatmap", "influence_vs_prior"]
