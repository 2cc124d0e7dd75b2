"""Figures of the micro-training experiment, from its snapshot records.

valley_vs_step, doc_u_vs_step, pathways_vs_step, profiles_at_steps,
accuracy_by_needle_bin; all_figures writes the PNGs. Records are the
experiment's dicts (intervention, seed, step and the snapshot metrics);
``exp`` is any object with ``variants`` and ``base.task`` /
``base.needle_bins``. Mean +- SE over
seeds is :func:`lostmid_jax.analysis.metrics.mean_se`.
"""

from __future__ import annotations

import pathlib

import matplotlib
import numpy as np

from ._layout import save, single_axes
from ..analysis.metrics import mean_se


def _by_step(records, variant, key):
    steps = sorted({r["step"] for r in records if r["intervention"] == variant})
    stats = np.array([mean_se([r[key] for r in records if r["intervention"] == variant and r["step"] == s and key in r])
                      for s in steps]).reshape(-1, 2)
    return np.array(steps), stats[:, 0], np.nan_to_num(stats[:, 1])  # one seed: no error bar


def _xaxis(ax):
    ax.set_xscale("symlog", linthresh=1)
    ax.set_xlabel("optimizer step")


def valley_vs_step(records, variants, *, key="total_valley", ylabel="valley depth log10(n_L / mean middle n_j)",
                   title="relative valley over training", ax=None):
    """Valley depth log10(recency / middle) (or another snapshot ``key``) against step,
    mean +- SE over seeds, per variant; returns the Figure."""
    fig, ax, own = single_axes(ax, (6, 4))
    for v in variants:
        s, m, e = _by_step(records, v, key)
        ax.errorbar(s, m, yerr=e, marker="o", capsize=3, label=v)
    _xaxis(ax)
    ax.axhline(0, color="gray", lw=0.5)
    ax.set_ylabel(ylabel)
    ax.legend()
    ax.set_title(title)
    if own:
        fig.tight_layout()
    return fig


def doc_u_vs_step(records, variants, *, ax=None):
    """Chunk-local U log10(sqrt(start * end edge) / middle), mean over documents, against step; returns the Figure."""
    return valley_vs_step(records, variants, key="total_doc_u", title="U inside each document",
                          ylabel="document-local U log10(sqrt(edges) / middle)", ax=ax)


def pathways_vs_step(records, *, ax=None):
    """Value and score pathway norms (all positions) against step, baseline, mean +- SE; returns the Figure."""
    fig, ax, own = single_axes(ax, (6, 4))
    for path in ("total", "value", "score"):
        s, m, e = _by_step(records, "none", f"{path}_norm")
        ax.errorbar(s, m, yerr=e, marker="o", capsize=3, label=path)
    _xaxis(ax)
    ax.set_yscale("log")
    ax.set_ylabel("sqrt(sum_j ||J_j||_F^2)")
    ax.legend()
    ax.set_title("value vs score pathway (baseline)")
    if own:
        fig.tight_layout()
    return fig


def profiles_at_steps(profile_rows, boundaries, *, variant="none", seed=None, pathway="total", ax=None):
    """Normalized profiles n_j / sum n at each snapshot step, document starts dashed; returns the Figure.

    Args:
      profile_rows: one dict per (intervention, seed, step, position), in
        position order, with the pathway values.
      boundaries: array indices (0-based) of the documents' first tokens;
        drawn at their positions j = index + 1.
    """
    rows = [r for r in profile_rows if r["intervention"] == variant]
    seed = rows[0]["seed"] if seed is None else seed
    rows = [r for r in rows if r["seed"] == seed]
    steps = sorted({r["step"] for r in rows})
    fig, ax, own = single_axes(ax, (7, 4))
    cmap = matplotlib.colormaps["viridis"]
    for i, s in enumerate(steps):
        n = np.array([r[pathway] for r in rows if r["step"] == s], float)
        ax.plot(np.arange(1, n.size + 1), n / n.sum(), color=cmap(i / max(len(steps) - 1, 1)), lw=1, label=f"step {s}")
    for b in boundaries:
        ax.axvline(b + 1, color="k", ls="--", lw=0.7)
    ax.set_yscale("log")
    ax.set_xlabel("input position j")
    ax.set_ylabel(f"{pathway} influence (normalized)")
    ax.set_title(f"{variant}, seed {seed}: profiles at snapshot steps")
    ax.legend(fontsize=7, ncol=2)
    if own:
        fig.tight_layout()
    return fig


def accuracy_by_needle_bin(records, variants, bins, chance=None, *, ax=None):
    """Retrieval accuracy per needle bin at the last step, each variant, mean +- SE over seeds.

    Args:
      bins: number of needle bins (records hold acc_bin0 .. acc_bin{bins-1}).
      chance: chance accuracy, drawn as a dotted line (None: no line).

    Returns:
      The Figure.
    """
    last = max(r["step"] for r in records)
    fig, ax, own = single_axes(ax, (6, 4))
    x = (np.arange(bins) + 0.5) / bins
    for k, v in enumerate(variants):
        stats = np.array([mean_se([r[f"acc_bin{b}"] for r in records if r["intervention"] == v and r["step"] == last])
                          for b in range(bins)])
        m, e = stats[:, 0], np.nan_to_num(stats[:, 1])
        ax.errorbar(x + 0.01 * (k - len(variants) / 2), m, yerr=e, marker="o", capsize=3, label=v)
    if chance is not None:
        ax.axhline(chance, color="gray", ls=":", label=f"chance {chance:.3f}")
    ax.set_xlabel("needle position (bin centre)")
    ax.set_ylabel("accuracy")
    ax.set_title(f"retrieval accuracy by needle bin, step {last}")
    ax.legend(fontsize=8)
    if own:
        fig.tight_layout()
    return fig




def all_figures(records, profile_rows, exp, boundaries, run_dir, *, chance=None) -> list[pathlib.Path]:
    """Write the PNGs into ``run_dir``; returns their paths.

    valley_vs_step, pathways_vs_step and profiles_at_steps always;
    doc_u_vs_step unless the task is "retrieval"; accuracy_by_needle_bin.png
    unless it is "lm", with ``chance`` (train.tasks.chance_accuracy of the
    base config) as its dotted line.
    """
    figs = {"valley_vs_step": valley_vs_step(records, exp.variants),
            "pathways_vs_step": pathways_vs_step(records),
            "profiles_at_steps": profiles_at_steps(profile_rows, boundaries)}
    if exp.base.task != "retrieval":
        figs["doc_u_vs_step"] = doc_u_vs_step(records, exp.variants)
    if exp.base.task != "lm":
        figs["accuracy_by_needle_bin"] = accuracy_by_needle_bin(records, exp.variants, exp.base.needle_bins, chance)
    return [save(fig, pathlib.Path(run_dir) / f"{name}.png", dpi=110) for name, fig in figs.items()]
