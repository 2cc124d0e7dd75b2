"""Step-0 figures: measured influence vs theory, variants, pathways, a_l, attention heatmaps.

:func:`figures` draws a run's figures from its saved tables alone (CSV stem
-> DataFrame, as ``lostmid_jax.runs.load_run`` gives them): profiles, metrics,
alphas and attention. :func:`summaries_from_tables` turns those tables into
the summary dicts that :func:`overlay` and :func:`heatmap` draw (the same
dicts the step-0 experiment builds in memory: length, depth, seeds, paths
(total / value / score: p, p_sem, norms, norms_sem), theory rows, fitted a,
alphas and the optional attention heatmap).

Positions are 1-based (x = j/L), layers and heads too.
"""

from __future__ import annotations

import math
import pathlib

import numpy as np

from . import style
from ._layout import axes_grid, save
from .scales import RATIO_CMAP, ratio_colorbar_ticks, ratio_norm
from ..stats.format import fmt_ci
from ..theory import positions

_DENSITY = r"influence density $L\,p_j$"


def _density(ax, x, values, sem=None, *, i, n, label, band=True):
    """Plot L * values over x (j < L as a line, j = L as a marker), with a +-2 SEM band."""
    scale = x.size
    kw = style.series(i, n)
    ax.plot(x[:-1], scale * values[:-1], label=label, **kw)
    ax.plot(x[-1:], scale * values[-1:], marker=kw["marker"], color=kw["color"], ms=6, linestyle="none",
            mfc=kw["markerfacecolor"])
    if sem is not None and band:
        lo = np.clip(values - 2 * sem, values * 1e-3, None)
        ax.fill_between(x[:-1], scale * lo[:-1], scale * (values + 2 * sem)[:-1], color=kw["color"], alpha=0.2, lw=0)


def _setup(ax, title, ylabel=_DENSITY):
    ax.set_yscale("log")
    ax.set_xlabel(r"normalized input position $x = j/L$")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    style.mark_coincident(ax, rtol=1e-9)
    ax.legend()


def _judged_text(summary: dict, ci: dict, metric: str, kind: str) -> str:
    """The point a verdict judges with its interval (rank-corrected Spearman, bias-corrected W1), or the plain
    value with its interval where the summary has no judged point (a run written before they existed)."""
    judged = f"spearman_rc_{kind}" if metric == "spearman" else f"wasserstein_bc_{kind}"
    spec = ".3f" if metric == "spearman" else ".4f"  # a W1 near the claim's 0.02 needs its fourth digit
    value = summary.get(judged, math.nan)
    if math.isfinite(value):
        return _ci_text(value, ci.get(judged if metric == "spearman" else f"wasserstein_{kind}"), spec)
    return _ci_text(summary.get(f"{metric}_{kind}", math.nan), ci.get(f"{metric}_{kind}"), spec)


def _ci_text(value, ci, spec=".3f") -> str:
    return fmt_ci(value, *(ci if ci is not None else (math.nan, math.nan)), spec, missing="n/a")


@style.styled
def overlay(name: str, summaries: dict, *, ax=None):
    """Four panels for one preset: native vs theory, variants, pathways, measured a_l; returns the Figure.

    ``ax``: four Axes (a 2 x 2 grid or a flat sequence, in reading order).
    """
    variants = [(v, s) for (n, v), s in summaries.items() if n == name]
    native = dict(variants).get("native", variants[0][1])
    ci = native.get("ci", {})
    x = positions(native["length"])
    fig, axes, own = axes_grid(ax, 2, 2, (12, 8.5))
    axes = np.asarray(list(axes.flat[:4]), dtype=object).reshape(2, 2)
    ax = axes[0, 0]
    tot = native["paths"]["total"]
    _density(ax, x, tot["p"], tot["p_sem"], i=0, n=3,
             label=f"measured ({native['seeds']} seed(s); band: $\\pm 2$ SEM)")
    _density(ax, x, native["theory"]["measured"], i=1, n=3, label=r"theory, measured $a_l$")
    _density(ax, x, native["theory"]["fitted"], i=2, n=3,
             label=f"theory, fitted $a$ = {_ci_text(native['a_fit'], ci.get('a_fit'))}")
    _setup(ax, f"{name}: $\\|\\partial y_L / \\partial x_j\\|_F$ vs theory (native); markers at right: $j = L$")
    stats = (f"vs theory [95% CI]      measured $a_l$      fitted $a$\n"
             f"Spearman  {_judged_text(native, ci, 'spearman', 'measured')}   "
             f"{_judged_text(native, ci, 'spearman', 'fitted')}\n"
             f"$W_1$          {_judged_text(native, ci, 'wasserstein', 'measured')}   "
             f"{_judged_text(native, ci, 'wasserstein', 'fitted')}")
    if math.isfinite(native.get("a_w1", math.nan)):
        stats += (f"\n$W_1$ with the $a$ chosen for $W_1$ ({native['a_w1']:.3f}): "
                  f"{_judged_text(native, ci, 'wasserstein', 'w1fit')}")
    # the statistics in a box (the legend's heading), placed where no data is; not in the title
    ax.legend(title=stats, title_fontproperties={"size": "small"}, alignment="left", loc="best")
    ax = axes[0, 1]
    for i, (variant, s) in enumerate(variants):
        _density(ax, x, s["paths"]["total"]["p"], s["paths"]["total"]["p_sem"], i=i, n=len(variants),
                 label=variant, band=False)
    _setup(ax, f"{name}: position-encoding variants (total pathway)")
    ax = axes[1, 0]
    total_sum = np.nansum(native["paths"]["total"]["norms"])  # a NaN cell must not blank the panel
    paths = list(native["paths"].items())
    for i, (pathway, prof) in enumerate(paths):
        _density(ax, x, prof["norms"] / total_sum, prof["norms_sem"] / total_sum, i=i, n=len(paths), label=pathway)
    score = native.get("score_fraction_median", math.nan)
    _setup(ax, f"{name}: value and score pathways (native), scaled by the total's sum\n"
               + ("score pathway not measured" if math.isnan(score) else
                  f"median $\\|J_{{score}}\\| / \\|J_{{total}}\\|$ over $j < L$: {score:.2e}"))
    ax = axes[1, 1]
    for i, (variant, s) in enumerate(variants):
        layers = np.arange(1, s["depth"] + 1)
        kw = style.series(i, len(variants))
        kw.pop("markevery", None)
        style.side_by_side(ax, layers, s["alphas"], 2 * s["alphas_sem"], i, len(variants), capsize=2, label=variant,
                           **kw)  # variants with the same a_l keep both markers
    ax.axhline(native["a_fit"], color=style.PALETTE[-1], ls=":",
               label=f"fitted constant $a$ (native) = {native['a_fit']:.3f}")
    ax.set_xlabel(r"layer $l$")
    style.integer_ticks(ax, "x")
    ax.set_ylabel(r"$a_l = E\|attn\| / (\|resid\| + \|attn\|)$")
    ax.set_ylim(0, 1)
    ax.set_title(f"{name}: measured effective attention strength ($\\pm 2$ SEM)")
    ax.legend()
    if own:
        fig.tight_layout()
    return fig


def received_vs_uniform(probs) -> np.ndarray:
    """Attention each key receives over what uniform causal attention gives it: [..., L] from A [..., L, L].

    r_j = sum_{i >= j} A_ij / sum_{i >= j} 1/i (1-based i, j): 1 where every query attends uniformly over
    its keys 1..i (the same ratio as :func:`lostmid_jax.analysis.attention_received`'s vs_uniform for a
    causal mask, computed here from the saved probabilities).
    """
    probs = np.asarray(probs, np.float64)
    length = probs.shape[-1]
    inverse = 1.0 / np.arange(1, length + 1)
    expected = np.cumsum(inverse[::-1])[::-1]  # sum_{i >= j} 1/i
    return probs.sum(axis=-2) / expected


@style.styled
def heatmap(name: str, summary: dict, heads: int = 3, *, ax=None):
    """i * A[query i, key j] of chosen layers and heads: the deviation from uniform causal attention.

    Uniform causal attention is A_ij = 1/i, so i * A_ij = 1 everywhere it holds; the colour is a diverging
    log scale centred at 1 (blue below, red above, symmetric limits: :func:`.scales.ratio_norm`). Under each panel a strip shows
    the attention each key receives relative to uniform (:func:`received_vs_uniform`), on the same scale.
    Positions are 1-based (query i, key j = 1..L), layers and heads too.

    ``ax``: a grid [layers, heads shown] of Axes (a flat sequence is one row).

    Returns:
      The Figure, or None when the summary holds no heatmap.
    """
    if summary.get("heat") is None:
        return None
    layers, probs = summary["heat"]  # [layers] 0-based layer indices, [layers, N, L, L]
    shown = min(heads, probs.shape[1])
    fig, axes, own = axes_grid(ax, len(layers), shown, (3.4 * shown + 1.6, 3.9 * len(layers)), layout="constrained")
    length = probs.shape[-1]
    extent = (0.5, length + 0.5, length + 0.5, 0.5)  # pixel k covers position k + 1
    rows = np.arange(1, length + 1, dtype=np.float64)[:, None]
    scaled = probs[:, :shown] * rows  # i * A_ij
    received = received_vs_uniform(probs[:, :shown])  # [layers, shown, L]
    norm, ticks = ratio_norm(np.concatenate([scaled[probs[:, :shown] > 0], received.ravel()]))
    cmap = RATIO_CMAP
    for r, layer in enumerate(layers):
        for c in range(shown):
            ax = axes[r, c]
            a = np.ma.masked_where(probs[r, c] <= 0, scaled[r, c])
            im = ax.imshow(a, cmap=cmap, norm=norm, interpolation="nearest", origin="upper", extent=extent)
            ax.set_title(f"layer {int(layer) + 1}, head {c + 1}")
            ax.grid(False)
            style.integer_ticks(ax, "both")
            ax.tick_params(labelbottom=False)
            if c == 0:
                ax.set_ylabel(r"query position $i$")
            strip = ax.inset_axes([0.0, -0.2, 1.0, 0.1])
            strip.imshow(received[r, c][None, :], cmap=cmap, norm=norm, interpolation="nearest", aspect="auto",
                         extent=(0.5, length + 0.5, 1, 0))
            strip.set_yticks([])
            strip.grid(False)
            style.integer_ticks(strip, "x")
            strip.set_ylabel("recv.", rotation=0, ha="right", va="center", fontsize="small")
            if r == len(layers) - 1:
                strip.set_xlabel(r"key position $j$ (strip: attention received / uniform)")
    bar = fig.colorbar(im, ax=list(axes[:len(layers), :shown].flat), shrink=0.9)
    ratio_colorbar_ticks(bar, ticks)
    bar.set_label(r"$i \cdot A_{ij}$: attention over uniform causal ($A_{ij} = 1/i$); 1 = uniform, log scale")
    if own:  # room under each row for its strip (an inset, which the layout does not see)
        room, title = 0.4 / fig.get_figheight(), 0.3 / fig.get_figheight()  # the last strip; the suptitle
        fig.get_layout_engine().set(hspace=0.12, rect=(0, room, 1, 1 - room - title))
        fig.suptitle(f"{name} at initialization: deviation from uniform attention (seed 0, layers "
                     f"{', '.join(str(int(l) + 1) for l in layers)}, heads 1-{shown}, first {length} positions)")
    return fig


def _col(frame, name):
    return frame[name].to_numpy(dtype=np.float64) if name in frame else None


def summaries_from_tables(tables: dict) -> dict:
    """{(preset, variant): summary dict for :func:`overlay` / :func:`heatmap`} from a run's tables alone."""
    profiles, metrics, alphas = tables["profiles"], tables["metrics"], tables["alphas"]
    attention = tables.get("attention")
    out = {}
    for _, m in metrics.iterrows():
        key = (m["preset"], m["variant"])
        rows = profiles[(profiles["preset"] == key[0]) & (profiles["variant"] == key[1])]
        paths = {}
        for pathway, frame in rows.groupby("pathway", sort=False):
            frame = frame.sort_values("j")
            paths[pathway] = dict(p=_col(frame, "p_mean"), p_sem=_col(frame, "p_sem"), norms=_col(frame, "norm_mean"),
                                  norms_sem=_col(frame, "norm_sem"))
        total = rows[rows["pathway"] == "total"].sort_values("j")
        layer_rows = alphas[(alphas["preset"] == key[0]) & (alphas["variant"] == key[1])].sort_values("layer")
        ci = {c[:-3]: (float(m[c]), float(m[c[:-3] + "_hi"])) for c in metrics.columns
              if c.endswith("_lo") and c[:-3] + "_hi" in metrics.columns}
        s = dict(length=int(m["length"]), depth=int(m["depth"]), seeds=int(m["seeds"]), paths=paths,
                 theory=dict(measured=_col(total, "theory_measured"), fitted=_col(total, "theory_fitted")),
                 alphas=_col(layer_rows, "a_mean"), alphas_sem=_col(layer_rows, "a_sem"), ci=ci, heat=None,
                 **{c: float(m[c]) for c in ("a_fit", "spearman_measured", "spearman_fitted", "wasserstein_measured",
                                             "wasserstein_fitted", "score_fraction_median")},
                 **{c: float(m[c]) for c in _JUDGED if c in m})  # absent from runs written before them
        if attention is not None:
            s["heat"] = _heat(attention[(attention["preset"] == key[0]) & (attention["variant"] == key[1])])
        out[key] = s
    return out


_JUDGED = ("a_w1", "spearman_rc_measured", "spearman_rc_fitted", "wasserstein_bc_measured", "wasserstein_bc_fitted",
           "wasserstein_bc_w1fit")


def _heat(frame):
    """(layers 0-based [R], probs [R, heads, l, l]) from attention.csv rows, or None."""
    if frame.empty:
        return None
    layers = sorted(int(v) for v in frame["layer"].unique())
    heads = int(frame["head"].max())
    size = int(frame["i"].max())
    probs = np.zeros((len(layers), heads, size, size))
    for r, layer in enumerate(layers):
        sub = frame[frame["layer"] == layer]
        probs[r, sub["head"].to_numpy() - 1, sub["i"].to_numpy() - 1, sub["j"].to_numpy() - 1] = sub["prob"].to_numpy()
    return np.asarray(layers) - 1, probs


def figures(tables: dict, cfg=None) -> dict:
    """{"overlay_<preset>": Figure, "heatmap_<preset>": Figure} from a run's tables alone (``cfg`` unused:
    everything drawn is in the tables)."""
    summaries = summaries_from_tables(tables)
    out = {}
    for name in dict.fromkeys(n for n, _ in summaries):
        out[f"overlay_{name}"] = overlay(name, summaries)
        native = summaries.get((name, "native")) or next(s for (n, _), s in summaries.items() if n == name)
        fig = heatmap(name, native)
        if fig is not None:
            out[f"heatmap_{name}"] = fig
    return out


def all_figures(summaries: dict, run_dir: pathlib.Path) -> list[pathlib.Path]:
    """overlay_<preset>.png and heatmap_<preset>.png for every preset of in-memory ``summaries``; their paths."""
    run_dir = pathlib.Path(run_dir)
    out = []
    for name in dict.fromkeys(n for n, _ in summaries):
        out.append(save(overlay(name, summaries), run_dir / f"overlay_{name}.png"))
        native = summaries.get((name, "native")) or next(s for (n, _), s in summaries.items() if n == name)
        fig = heatmap(name, native)
        if fig is not None:
            out.append(save(fig, run_dir / f"heatmap_{name}.png"))
    return out
