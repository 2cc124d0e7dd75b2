"""Figure of the pretrained-vs-init comparison: each model's profile against its theory rows, and a_l."""

from __future__ import annotations

import pathlib

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from . import COLORS
from ._layout import axes_grid, save
from ..theory import positions


def profiles_figure(summaries: dict, title: str, *, ax=None) -> Figure:
    """L p_j of each model with its two theory rows (log scale), and a_l per layer.

    Args:
      summaries: {"pretrained" | "init": summary} (experiments.step0.report.summarize_variant).
      title: the checkpoint's name.
      ax: three Axes to draw into (default: a new 15 x 4.2 in figure).

    Layers are numbered from 1.
    """
    fig, grid, own = axes_grid(ax, 1, 3, (15, 4.2))
    axes = list(grid.flat[:3])
    for ax, (name, s) in zip(axes[:2], summaries.items()):
        length = s["length"]
        x = positions(length)
        p, sem = s["paths"]["total"]["p"], s["paths"]["total"]["p_sem"]
        ax.plot(x, length * p, "-", color=COLORS[0], lw=1.4, label="measured")
        ax.fill_between(x, length * np.clip(p - 2 * sem, p * 1e-3, None), length * (p + 2 * sem),
                        color=COLORS[0], alpha=0.25, lw=0)
        ax.plot(x, length * s["theory"]["measured"], "--", color=COLORS[1], label="theory, measured a_l")
        ax.plot(x, length * s["theory"]["fitted"], ":", color=COLORS[2], label=f"theory, fitted a={s['a_fit']:.3f}")
        ax.set_yscale("log")
        ax.set_xlabel("normalized input position x = j / L")
        ax.set_ylabel("influence density  L p_j  (log)")
        ax.set_title(f"{title}: {name} (L={length}, H={s['depth']})", fontsize=10)
        ax.legend(fontsize=8)
    for i, (name, s) in enumerate(summaries.items()):
        axes[2].errorbar(np.arange(1, s["depth"] + 1), s["alphas"], yerr=s["alphas_sem"], marker="o", ms=3,
                         color=COLORS[i], label=name)
    axes[2].xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[2].set_xlabel("layer l")
    axes[2].set_ylabel("attention strength a_l")
    axes[2].legend(fontsize=8)
    if own:
        fig.tight_layout()
    return fig


def all_figures(summaries: dict, run_dir: pathlib.Path, title: str) -> list[pathlib.Path]:
    """profiles.png in ``run_dir``."""
    return [save(profiles_figure(summaries, title), pathlib.Path(run_dir) / "profiles.png", dpi=130)]
