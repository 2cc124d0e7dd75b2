"""Figures of the micro-training experiment (records from train.run_experiment).

valley_vs_step, chunk_u_vs_step, pathways_vs_step, profiles_at_steps, accuracy_by_depth;
all_figures writes PNGs.
"""

from __future__ import annotations

import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from ..train.verdict import mean_se  # noqa: E402


def _by_step(records, variant, key):
    steps = sorted({r["step"] for r in records if r["intervention"] == variant})
    stats = np.array([mean_se([r[key] for r in records if r["intervention"] == variant and r["step"] == s and key in r])
                      for s in steps]).reshape(-1, 2)
    return np.array(steps), stats[:, 0], np.nan_to_num(stats[:, 1])  # one seed: no error bar


def _xaxis(ax):
    ax.set_xscale("symlog", linthresh=1)
    ax.set_xlabel("optimizer step")


def valley_vs_step(records, variants, *, key="total_valley", ylabel="valley depth log10(n_L / mean middle n_j)",
                   title="relative valley over training"):
    """Valley depth log10(recency / middle) (or another snapshot ``key``) against step,
    mean +- SE over seeds, per variant."""
    fig, ax = plt.subplots(figsize=(6, 4))
    for v in variants:
        s, m, e = _by_step(records, v, key)
        ax.errorbar(s, m, yerr=e, marker="o", capsize=3, label=v)
    _xaxis(ax)
    ax.axhline(0, color="gray", lw=0.5)
    ax.set_ylabel(ylabel)
    ax.legend()
    ax.set_title(title)
    fig.tight_layout()
    return fig


def chunk_u_vs_step(records, variants):
    """Chunk-local U log10(sqrt(start * end edge) / middle), mean over documents, against step."""
    return valley_vs_step(records, variants, key="total_chunk_u", title="U inside each document",
                          ylabel="chunk-local U log10(sqrt(edges) / middle)")


def pathways_vs_step(records):
    """Value and score pathway norms (all positions) against step, baseline, mean +- SE."""
    fig, ax = plt.subplots(figsize=(6, 4))
    for path in ("total", "value", "score"):
        s, m, e = _by_step(records, "none", f"{path}_norm")
        ax.errorbar(s, m, yerr=e, marker="o", capsize=3, label=path)
    _xaxis(ax)
    ax.set_yscale("log")
    ax.set_ylabel("sqrt(sum_j ||J_j||_F^2)")
    ax.legend()
    ax.set_title("value vs score pathway (baseline)")
    fig.tight_layout()
    return fig


def profiles_at_steps(profile_rows, boundaries, *, variant="none", seed=None, pathway="total"):
    """Normalized profiles n_j / sum n at each snapshot step, chunk boundaries dashed."""
    rows = [r for r in profile_rows if r["intervention"] == variant]
    seed = rows[0]["seed"] if seed is None else seed
    rows = [r for r in rows if r["seed"] == seed]
    steps = sorted({r["step"] for r in rows})
    fig, ax = plt.subplots(figsize=(7, 4))
    cmap = plt.get_cmap("viridis")
    for i, s in enumerate(steps):
        n = np.array([r[pathway] for r in rows if r["step"] == s], float)
        ax.plot(np.arange(n.size), n / n.sum(), color=cmap(i / max(len(steps) - 1, 1)), lw=1, label=f"step {s}")
    for b in boundaries:
        ax.axvline(b, color="k", ls="--", lw=0.7)
    ax.set_yscale("log")
    ax.set_xlabel("input position j")
    ax.set_ylabel(f"{pathway} influence (normalized)")
    ax.set_title(f"{variant}, seed {seed}: profiles at snapshot steps")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


def accuracy_by_depth(records, variants, bins, chance):
    """Accuracy per depth bin at the last step, each variant, mean +- SE over seeds."""
    last = max(r["step"] for r in records)
    fig, ax = plt.subplots(figsize=(6, 4))
    x = (np.arange(bins) + 0.5) / bins
    for k, v in enumerate(variants):
        stats = np.array([mean_se([r[f"acc_bin{b}"] for r in records if r["intervention"] == v and r["step"] == last])
                          for b in range(bins)])
        m, e = stats[:, 0], np.nan_to_num(stats[:, 1])
        ax.errorbar(x + 0.01 * (k - len(variants) / 2), m, yerr=e, marker="o", capsize=3, label=v)
    ax.axhline(chance, color="gray", ls=":", label=f"chance {chance:.3f}")
    ax.set_xlabel("needle depth (bin centre)")
    ax.set_ylabel("accuracy")
    ax.set_title(f"retrieval accuracy by depth, step {last}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def all_figures(records, profile_rows, exp, boundaries, run_dir) -> list[pathlib.Path]:
    """Write the PNGs into ``run_dir``; returns their paths."""
    from ..train.tasks import chance_accuracy

    figs = {"valley_vs_step": valley_vs_step(records, exp.variants),
            "pathways_vs_step": pathways_vs_step(records),
            "profiles_at_steps": profiles_at_steps(profile_rows, boundaries)}
    if exp.base.task != "retrieval":
        figs["chunk_u_vs_step"] = chunk_u_vs_step(records, exp.variants)
    if exp.base.task != "lm":
        figs["accuracy_by_depth"] = accuracy_by_depth(records, exp.variants, exp.base.depth_bins,
                                                      chance_accuracy(exp.base))
    paths = []
    for name, fig in figs.items():
        path = pathlib.Path(run_dir) / f"{name}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths
