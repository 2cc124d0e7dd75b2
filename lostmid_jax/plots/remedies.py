"""Figures of `lostmid remedies`: accuracy by passage per remedy, the paired effects, attention received.

    accuracy_by_remedy(acc)     # acc: DataFrame of remedy, passage, accuracy(_lo/_hi), chance
    effects(eff)                # eff: DataFrame of remedy, middle(_lo/_hi), ends(_lo/_hi)
    received_by_remedy(rec)     # rec: DataFrame of remedy, x, vs_uniform

Each returns its Figure and accepts ``ax=`` (:mod:`lostmid_jax.plots`). The
unmodified model ("none") is drawn in grey in every panel.
"""

from __future__ import annotations

import math

import numpy as np

from ._layout import axes_grid, single_axes
from .style import series, styled

_BASE = dict(color="0.55", marker="o", linewidth=1.2)


def _errorbar(ax, rows, offset: float, **kw):
    p = np.asarray(rows["passage"], float)
    y = np.asarray(rows["accuracy"], float)
    err = np.vstack([y - np.asarray(rows["accuracy_lo"], float), np.asarray(rows["accuracy_hi"], float) - y])
    ax.errorbar(p + offset, y, yerr=err, capsize=3, **kw)


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
            _errorbar(a, acc[acc["remedy"] == name], 0.06, label="remedy", **series(0, 2))
        a.axhline(chance, color="0.4", linestyle=":", linewidth=1)
        a.set(title=name, xticks=np.asarray(base["passage"], float), ylim=(-0.02, 1.02), xlabel="passage p")
    for a in list(axes.flat)[len(names):]:
        a.set_visible(False)
    axes.flat[0].set_ylabel("accuracy (95% Wilson)")
    axes.flat[0].legend(loc="best", fontsize=7, title=f"chance {chance:.2f} (dotted)", title_fontsize=7)
    if title:
        fig.suptitle(title)
    return fig


@styled
def effects(eff, *, ax=None, title: str | None = None):
    """Each applied remedy's paired difference from the unmodified model (middle and ends accuracy) with its
    95% bootstrap interval; 0 is no change."""
    rows = eff[eff["verdict"] != "not applicable"]
    names = list(rows["remedy"])
    fig, ax, own = single_axes(ax, (5.6, 0.8 + 0.45 * max(1, len(names))))
    y = np.arange(len(names))[::-1].astype(float)
    for i, (col, label) in enumerate((("middle", "middle passage(s)"), ("ends", "passages 1 and k"))):
        m = np.asarray(rows[col], float)
        err = np.vstack([m - np.asarray(rows[f"{col}_lo"], float), np.asarray(rows[f"{col}_hi"], float) - m])
        ax.errorbar(m, y + (0.12 - 0.24 * i), xerr=err, capsize=3, label=label,
                    **{**series(i, 2), "linestyle": "none"})
    ax.axvline(0.0, color="0.3", linestyle="--", linewidth=1)
    ax.set(yticks=y, yticklabels=names, xlabel="accuracy, remedy - unmodified (paired, 95% CI)")
    ax.legend(loc="best", fontsize=7)
    ax.set_title(title or "effect of each remedy on the same examples")
    return fig


def _plain_log_labels(ax) -> None:
    """Tick labels of a log y axis spanning less than a decade as plain numbers (0.998, not 9.98 x 10^-1)."""
    from matplotlib.ticker import FuncFormatter

    lo, hi = ax.get_ylim()
    if hi / lo < 10:
        plain = FuncFormatter(lambda v, _: f"{v:.4g}")
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(plain)


@styled
def received_by_remedy(rec, *, ax=None, title: str | None = None):
    """Attention received against uniform attention over the mask, by key position x = j/L, per model
    (mean over layers, heads and the measured prompts; 1 = uniform)."""
    fig, ax, own = single_axes(ax, (5.6, 3.4))
    names = list(dict.fromkeys(rec["remedy"]))
    for i, name in enumerate(names):
        rows = rec[rec["remedy"] == name]
        kw = dict(_BASE, marker=None) if name == "none" else series(i, max(len(names), 8), marker=False)
        ax.plot(rows["x"], rows["vs_uniform"], label="unmodified" if name == "none" else name, **kw)
    ax.axhline(1.0, color="0.3", linestyle="--", linewidth=1)
    ax.set(yscale="log", xlabel="key position x = j / L", ylabel="received / uniform over the mask")
    _plain_log_labels(ax)
    ax.legend(loc="best", fontsize=6.5)
    ax.set_title(title or "attention received (fact in the middle passage)")
    return fig


__all__ = ["accuracy_by_remedy", "effects", "received_by_remedy"]
