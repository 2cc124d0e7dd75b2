"""Figures of `lostmid remedies`: accuracy by passage per remedy, the paired effects, attention received.

    accuracy_by_remedy(acc)     # acc: DataFrame of remedy, passage, accuracy(_lo/_hi), chance
    effects(eff)                # eff: DataFrame of remedy, middle(_lo/_hi), ends(_lo/_hi)
    received_by_remedy(rec)     # rec: DataFrame of remedy, x, vs_uniform: the unmodified model, then each
                                # remedy over it, one panel each

Each returns its Figure and accepts ``ax=`` (:mod:`lostmid_jax.plots`). The
unmodified model ("none") is drawn in grey in every panel.
"""

from __future__ import annotations

import math

import numpy as np

from ._layout import axes_grid, single_axes, wrapped
from .scales import distinct_ticks, error_lengths, ratio_axis, ratio_limit
from .style import series, styled

_BASE = dict(color="0.55", marker="o", linewidth=1.2)


def _errorbar(ax, rows, offset: float, **kw):
    p = np.asarray(rows["passage"], float)
    y = np.asarray(rows["accuracy"], float)
    ax.errorbar(p + offset, y, yerr=error_lengths(y, rows["accuracy_lo"], rows["accuracy_hi"]), capsize=3, **kw)


def _points(i: int, n: int) -> dict:
    """series(i, n) for a few error-bar points: every point keeps its marker (no markevery)."""
    kw = series(i, n)
    kw.pop("markevery", None)
    return kw


@styled
def accuracy_by_remedy(acc, *, ax=None, title: str | None = None):
    """One panel per remedy: its multiple-choice accuracy by passage with Wilson 95% intervals, the unmodified
    model's beside it in grey, and chance."""
    names = [n for n in dict.fromkeys(acc["remedy"]) if n != "none"] or ["none"]
    cols = min(4, len(names))
    rows_n = math.ceil(len(names) / cols)
    fig, axes, own = axes_grid(ax, rows_n, cols, (2.9 * cols, 2.5 * rows_n), needed=len(names),
                               sharey=True, layout="constrained")
    base = acc[acc["remedy"] == "none"]
    chance = float(np.asarray(acc["chance"], float)[0])
    for i, name in enumerate(names):
        a = axes.flat[i]
        _errorbar(a, base, -0.06, label="unmodified", **_BASE)
        if name != "none":
            _errorbar(a, acc[acc["remedy"] == name], 0.06, label="remedy", **_points(0, 2))
        a.axhline(chance, color="0.4", linestyle=":", linewidth=1)
        a.set(title=name, xticks=np.asarray(base["passage"], float), ylim=(-0.02, 1.02), xlabel="passage p")
    for a in list(axes.flat)[len(names):]:
        a.set_visible(False)
    axes.flat[0].set_ylabel("accuracy (95% Wilson)")
    legend = dict(fontsize=7, title=f"chance {chance:.2f} (dotted)", title_fontsize=7)
    if own:  # under the panels, where it hides no data
        fig.legend(*axes.flat[0].get_legend_handles_labels(), loc="outside lower center", ncol=2, **legend)
    else:
        axes.flat[0].legend(loc="best", **legend)
    if title:
        fig.suptitle(wrapped(title, fig.get_figwidth(), 11))
    return fig


@styled
def effects(eff, *, ax=None, title: str | None = None):
    """Each applied remedy's paired difference from the unmodified model (middle and ends accuracy) with its
    95% bootstrap interval; 0 is no change. The two estimates of a remedy sit a row apart (filled circle,
    open square, every marker drawn), so equal effects with zero-width intervals both show; a remedy without
    numbers (a no-op at the run's length is not measured) shows its verdict in its row."""
    rows = eff[eff["verdict"] != "not applicable"]
    names = list(rows["remedy"])
    fig, ax, own = single_axes(ax, (5.6, 0.8 + 0.45 * max(1, len(names))), layout="constrained")
    y = np.arange(len(names))[::-1].astype(float)
    for i, (col, label) in enumerate((("middle", "middle passage(s)"), ("ends", "passages 1 and k"))):
        m = np.asarray(rows[col], float)
        ax.errorbar(m, y + (0.15 - 0.3 * i), xerr=error_lengths(m, rows[f"{col}_lo"], rows[f"{col}_hi"]), capsize=3,
                    label=label, **{**_points(i, 2), "linestyle": "none", "markersize": 5.5 - 1.5 * i})
    ax.axvline(0.0, color="0.3", linestyle="--", linewidth=1)
    unmeasured = ~np.isfinite(np.asarray(rows["middle"], float))  # e.g. a no-op at this length: its verdict instead
    for row_y, verdict in zip(y[unmeasured], rows["verdict"][unmeasured]):
        ax.annotate(f"{verdict} (not measured)", (0.0, row_y), xytext=(4, 0), textcoords="offset points",
                    ha="left", va="center", fontsize=7, color="0.35", style="italic")
    ax.set(yticks=y, yticklabels=names, xlabel="accuracy, remedy \u2212 unmodified (paired, 95% CI)")
    ax.set_ylim(-0.6, len(names) - 0.4)
    distinct_ticks(ax, "x")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize=7, frameon=False)
    if title:
        fig.suptitle(wrapped(title, fig.get_figwidth(), 11))
    elif own:
        fig.suptitle("effect of each remedy on the same examples")
    return fig


def _last_row(n: int, cols: int, c: int) -> int:
    """The row of the last of ``n`` panels, filled row by row in ``cols`` columns, that sits in column ``c``."""
    return (n - 1 - c) // cols


@styled
def received_by_remedy(rec, *, ax=None, title: str | None = None):
    """Attention received by key position x = j/L (mean over layers, heads and the measured prompts) in small
    multiples: the first panel is the unmodified model against uniform attention over the mask (grey), each
    other panel one remedy against the unmodified model (received with the remedy / without it, 1 = no change).

    Every y axis is logarithmic and symmetric about 1 (:func:`.scales.ratio_axis`): a factor above 1 lies as
    far from the dashed line as the same factor below; the remedy panels share one scale. A remedy whose prompts
    hold other positions (markers add tokens) is compared at the unmodified run's x, interpolated linearly, and
    its panel says so ("at equal x"). ``ax``: one Axes per panel (a grid or a flat sequence).
    """
    base = rec[rec["remedy"] == "none"].sort_values("x")
    names = [n for n in dict.fromkeys(rec["remedy"]) if n != "none"]
    panels = len(names) + 1
    cols = min(3, panels)
    rows_n = math.ceil(panels / cols)
    fig, axes, own = axes_grid(ax, rows_n, cols, (2.7 * cols + 0.4, 2.0 * rows_n + 0.9), needed=panels,
                               sharex=True, layout="constrained")
    first = axes.flat[0]
    first.plot(base["x"], base["vs_uniform"], **dict(_BASE, marker=None))
    first.axhline(1.0, color="0.3", linestyle="--", linewidth=0.8)
    first.set_title("unmodified: received / uniform", fontsize=8)
    ratio_axis(first, ratio_limit(base["vs_uniform"]) ** 1.08)  # a margin: the extremes are not on the frame
    first.set_ylabel("received / uniform")
    changes, moved = {}, set()
    bx, by = np.asarray(base["x"], float), np.asarray(base["vs_uniform"], float)
    for name in names:
        mine = rec[rec["remedy"] == name].sort_values("x")
        mx, my = np.asarray(mine["x"], float), np.asarray(mine["vs_uniform"], float)
        if not np.array_equal(mx, bx):  # a remedy that adds tokens (markers): compared at the same x = j/L
            my, moved = np.interp(bx, mx, my), moved | {name}
        changes[name] = my / by
    limit = ratio_limit(np.concatenate(list(changes.values()))) ** 1.08 if changes else 2.0
    for i, name in enumerate(names, start=1):
        a = axes.flat[i]
        a.axhline(1.0, color="0.3", linestyle="--", linewidth=0.8)
        a.plot(bx, changes[name], **series(0, 1, marker=False))
        a.set_title(f"{name}: with / without" + (" (at equal x)" if name in moved else ""), fontsize=8)
        ratio_axis(a, limit)
        if i % cols == 0:
            a.set_ylabel("received, with / without")
    for a in list(axes.flat)[panels:]:
        a.set_visible(False)
    for c in range(cols):  # the lowest panel drawn in each column carries the x labels
        last = axes[_last_row(panels, cols, c), c]
        last.xaxis.set_tick_params(labelbottom=True)
        last.set_xlabel("key position x = j / L")
    if title or own:
        fig.suptitle(wrapped(title or "attention received (fact in the middle passage); log scales symmetric about 1",
                             fig.get_figwidth(), 11))
    return fig


__all__ = ["accuracy_by_remedy", "effects", "received_by_remedy"]
