"""Figure of the pretrained-vs-init comparison, drawn from its saved tables.

    fig = profiles_figure(tables["profiles"], tables["alphas"], tables["metrics"], "gpt2")

Tables are pandas DataFrames with the columns of
``experiments.pretrained_vs_init.COLUMNS`` (1-based j with x = j/L, 1-based layer).
"""

from __future__ import annotations

import numpy as np

from . import style
from ._layout import axes_grid

_THEORY = (("theory_measured", r"Step-0 theory, measured $a_\ell$"),
           ("theory_fitted", r"Step-0 theory, fitted $a = {a:.3f}$"))


def profiles_figure(profiles, alphas, metrics, title: str, *, ax=None):
    """L p_j of each model with its two theory rows (log y, raw values), and a_l per layer.

    Args:
      profiles: profiles table (model, j, x, p_mean, p_sem, theory_measured, theory_fitted).
      alphas: alphas table (model, layer, a_mean, a_sem).
      metrics: metrics table (model, a_fit).
      title: the checkpoint's name.
      ax: three Axes to draw into (default: a new 13 x 3.8 in figure).

    The band around the measured profile is mean +- 1.96 SE over seeds (clipped at 1e-3 of the mean
    on the log axis, which the legend says).
    """
    with style.context():
        fig, grid, own = axes_grid(ax, 1, 3, (13, 3.8))
        axes = list(grid.flat[:3])
        models = list(dict.fromkeys(profiles["model"]))
        a_fit = dict(zip(metrics["model"], metrics["a_fit"]))
        for ax, name in zip(axes[:2], models):
            rows = profiles[profiles["model"] == name].sort_values("j")
            x = rows["x"].to_numpy(float)
            length = len(rows)
            p, sem = rows["p_mean"].to_numpy(float), rows["p_sem"].to_numpy(float)
            ax.plot(x, length * p, label="measured (mean over seeds)", **style.series(0, 3))
            lo = np.maximum(p - 1.96 * sem, 1e-3 * p)
            ax.fill_between(x, length * lo, length * (p + 1.96 * sem), color=style.color(0), alpha=0.2, lw=0,
                            label=r"95% band ($\pm 1.96$ SE; floor $10^{-3}\times$ mean)")
            for i, (column, label) in enumerate(_THEORY, start=1):
                ax.plot(x, length * rows[column].to_numpy(float), label=label.format(a=float(a_fit[name])),
                        **style.series(i, 3))
            ax.set_yscale("log")
            ax.set_xlabel(r"normalized input position $x = j/L$")
            ax.set_ylabel(r"influence density $L\,p_j$")
            depth = int(alphas[alphas["model"] == name]["layer"].max())
            ax.set_title(f"{title}: {name} ($L = {length}$, $H = {depth}$)")
            style.mark_coincident(ax)
            ax.legend()
        for i, name in enumerate(models):
            rows = alphas[alphas["model"] == name].sort_values("layer")
            kw = style.series(i, len(models))
            kw.pop("markevery", None)
            style.side_by_side(axes[2], rows["layer"], rows["a_mean"], 1.96 * rows["a_sem"].to_numpy(float), i,
                               len(models), capsize=3, label=f"{name} ($\\pm 1.96$ SE)", **kw)
        style.integer_ticks(axes[2], "x")
        axes[2].set_xlabel(r"layer $\ell$")
        axes[2].set_ylabel(r"attention strength $a_\ell$")
        axes[2].set_title(r"measured $a_\ell$ per layer")
        axes[2].legend()
        if own:
            fig.tight_layout()
    return fig
