"""Figures of the micro-training experiment, drawn from its saved tables.

    figs = all_figures(tables, exp, boundaries=..., chance=...)   # {stem: Figure}

``tables`` are pandas DataFrames with the columns of
``experiments.micro_training.COLUMNS`` (snapshots, profiles, accuracy,
documents; 1-based j, needle bins and documents); ``exp`` is any object with
``variants``, ``seeds`` and ``base.task``. Points are means over seeds with
95% confidence intervals mean +- t(0.975, S-1) SE (none with one seed).
Steps go on a symlog axis whose ticks are the snapshot steps.
"""

from __future__ import annotations

import numpy as np

from .._moved import old_names
from ..stats.intervals import LOG_ROWS, log_interval, mean_halfwidth
from . import style
from ._layout import single_axes

LABELS = {"none": "baseline", "middle_weighted_loss": "middle-weighted loss", "oversample_middle": "oversampled middle needles",
          "curriculum": "middle-first curriculum"}
"""How each intervention is named in legends."""

PATHWAY_LABELS = {"total": "total", "value": r"value (attention probabilities frozen)",
                  "score": r"score (total $-$ value)"}


def _by_step(frame, variant, column):
    rows = frame[frame["intervention"] == variant]
    steps = np.array(sorted(rows["step"].unique()))
    stats_ = np.array([mean_halfwidth(rows[rows["step"] == s][column]) for s in steps]).reshape(-1, 2)
    return steps, stats_[:, 0], stats_[:, 1]


def step_axis(ax, steps) -> None:
    """Symlog step axis (0 shown) with a tick at each snapshot step, labelled plainly; call it after plotting."""
    from matplotlib.ticker import FixedLocator, NullLocator, ScalarFormatter

    ax.set_xscale("symlog", linthresh=1)
    ax.xaxis.set_major_locator(FixedLocator(sorted(set(int(s) for s in steps))))
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_locator(NullLocator())
    ticks = sorted(set(int(s) for s in steps))
    scale = ax.xaxis.get_transform()  # a margin of 6% of the span on the symlog scale, room for shifted series
    lo, hi = scale.transform([ticks[0], ticks[-1]])
    pad = 0.06 * ((hi - lo) or 1.0)
    ax.set_xlim(*scale.inverted().transform([lo - pad, hi + pad]))
    ax.set_xlabel(r"optimizer step $t$")


def _errorbars(ax, x, m, e, i, n, label, *, shift=True):
    kw = style.series(i, n)
    kw.pop("markevery", None)
    has_ci = np.isfinite(e).any()
    yerr = np.where(np.isfinite(e), e, 0) if has_ci else None
    label += "" if has_ci else " (one seed: no CI)"
    if shift:
        style.side_by_side(ax, x, m, yerr, i, n, capsize=3, label=label, **kw)
    else:
        ax.errorbar(x, m, yerr=yerr, capsize=3, label=label, **kw)


def metric_vs_step(snapshots, variants, column, ylabel, title, *, ax=None):
    """Snapshot ``column`` against step, mean and 95% CI over seeds, one series per variant."""
    with style.context():
        fig, ax, own = single_axes(ax, (6, 4))
        for i, v in enumerate(variants):
            s, m, e = _by_step(snapshots, v, column)
            _errorbars(ax, s, m, e, i, len(variants), LABELS.get(v, v))
        step_axis(ax, snapshots["step"])
        ax.axhline(0, color="0.5", lw=0.6)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        style.mark_coincident(ax)
        ax.legend()
        if own:
            fig.tight_layout()
    return fig


def valley_vs_step(snapshots, variants, *, ax=None):
    """Valley depth log10(n_L / mean middle n_j) of the total profile against step; returns the Figure."""
    return metric_vs_step(snapshots, variants, "total_valley",
                          r"valley depth $\log_{10}(n_L \,/\, \overline{n}_{\mathrm{middle}})$",
                          "relative valley over training", ax=ax)


def doc_u_vs_step(snapshots, variants, *, ax=None):
    """Document-local U (mean over documents) against step; returns the Figure."""
    return metric_vs_step(snapshots, variants, "total_doc_u",
                          r"document-local U $\log_{10}(\sqrt{n_{\mathrm{start}}\, n_{\mathrm{end}}}"
                          r" \,/\, n_{\mathrm{middle}})$", "U inside each document", ax=ax)


def pathways_vs_step(snapshots, *, variant="none", ax=None):
    """Total, value and score pathway norms against step (one variant): the geometric mean over seeds and
    its 95% interval on the log scale (:func:`~lostmid_jax.stats.intervals.log_interval`: a positive
    quantity's interval never reaches 0; none with fewer than 3 seeds, said in the legend); log y (raw values)."""
    with style.context():
        fig, ax, own = single_axes(ax, (6, 4))
        rows = snapshots[snapshots["intervention"] == variant]
        steps = np.array(sorted(rows["step"].unique()))
        without = False
        for i, path in enumerate(PATHWAY_LABELS):
            stats_ = np.array([log_interval(np.asarray(rows[rows["step"] == t][f"{path}_norm"], float)[
                np.asarray(rows[rows["step"] == t][f"{path}_norm"], float) > 0]) for t in steps]).reshape(-1, 3)
            g, lo, hi = stats_.T
            has_ci = np.isfinite(lo).any()
            without |= not has_ci
            kw = style.series(i, len(PATHWAY_LABELS))
            kw.pop("markevery", None)
            yerr = np.vstack([np.where(np.isfinite(lo), g - lo, 0), np.where(np.isfinite(hi), hi - g, 0)])
            ax.set_yscale("log")
            style.side_by_side(ax, steps, g, yerr if has_ci else None, i, len(PATHWAY_LABELS), capsize=3,
                          label=PATHWAY_LABELS[path], **kw)  # total and value nearly coincide
        step_axis(ax, snapshots["step"])
        ax.set_ylabel(r"pathway norm $\sqrt{\sum_j \|J_j\|_F^2}$ (geometric mean)")
        ax.set_title(f"value vs score pathway ({LABELS.get(variant, variant)})")
        style.mark_coincident(ax)
        ax.legend(title=f"no interval with n < {LOG_ROWS} seeds" if without else "95% CI on the log scale",
                  title_fontproperties={"size": "small"})
        if own:
            fig.tight_layout()
    return fig


def profiles_at_steps(profiles, boundaries, *, variant="none", seed=None, pathway="total", ax=None):
    """Normalized profiles n_j / sum n at each snapshot step (one variant and seed), document starts dashed.

    ``boundaries``: 0-based array indices of the documents' first tokens, drawn at j = index + 1.
    """
    rows = profiles[profiles["intervention"] == variant]
    seed = int(rows["seed"].min()) if seed is None else seed
    rows = rows[rows["seed"] == seed]
    steps = sorted(rows["step"].unique())
    with style.context():
        fig, ax, own = single_axes(ax, (8.2, 4))
        from matplotlib import colormaps

        cmap = colormaps["viridis"]
        for i, s in enumerate(steps):
            r = rows[rows["step"] == s].sort_values("j")
            n = r[pathway].to_numpy(float)
            ax.plot(r["j"], n / n.sum(), color=cmap(i / max(len(steps) - 1, 1)), lw=1.2, label=f"$t = {int(s)}$")
        for k, b in enumerate(boundaries):
            ax.axvline(b + 1, color="k", ls="--", lw=0.7, label="document start (BOS)" if k == 0 else None)
        ax.set_yscale("log")
        ax.set_xlabel(r"input position $j$")
        ax.set_ylabel(r"normalized influence $n_j / \sum_i n_i$")
        ax.set_title(f"{LABELS.get(variant, variant)}, seed {seed}: {pathway} profile at each snapshot")
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))  # beside the curves: the ends and the middle are data
        if own:
            fig.tight_layout()
    return fig


def accuracy_by_needle_bin(accuracy, variants, chance=None, *, ax=None):
    """Retrieval accuracy per needle bin at the last step, each variant, mean and 95% CI over seeds."""
    last = accuracy["step"].max()
    rows = accuracy[accuracy["step"] == last]
    with style.context():
        fig, ax, own = single_axes(ax, (6, 4))
        bins = sorted(rows["bin"].unique())
        width = 1.0 / max(len(bins), 1)
        for k, v in enumerate(variants):
            mine = rows[rows["intervention"] == v]
            x = np.array([mine[mine["bin"] == b]["x"].iloc[0] for b in bins])
            st = np.array([mean_halfwidth(mine[mine["bin"] == b]["accuracy"]) for b in bins])
            offset = 0.08 * width * (k - (len(variants) - 1) / 2)  # side by side: equal points stay visible
            _errorbars(ax, x + offset, st[:, 0], st[:, 1], k, len(variants), LABELS.get(v, v), shift=False)
        if chance is not None:
            ax.axhline(chance, color="0.3", ls=":", label=f"chance {chance:.3f}")
        ax.set_xlabel(r"needle position in the context (bin centre, fraction of the pairs)")
        ax.set_ylabel("retrieval accuracy")
        ax.set_title(f"accuracy by needle bin at step {int(last)}")
        ax.legend()
        if own:
            fig.tight_layout()
    return fig


def all_figures(tables: dict, exp, *, boundaries, chance=None) -> dict:
    """{stem: Figure}: fig1_valley, fig2_pathways, fig3_profiles always; fig4_doc_u unless the task is
    "retrieval"; fig5_accuracy unless it is "lm" (``chance``: its dotted line)."""
    snaps = tables["snapshots"]
    figs = {"fig1_valley": valley_vs_step(snaps, exp.variants),
            "fig2_pathways": pathways_vs_step(snaps),
            "fig3_profiles": profiles_at_steps(tables["profiles"], boundaries)}
    if exp.base.task in ("lm", "mixed") and snaps["total_doc_u"].notna().any():
        figs["fig4_doc_u"] = doc_u_vs_step(snaps, exp.variants)
    if exp.base.task != "lm" and "accuracy" in tables:
        figs["fig5_accuracy"] = accuracy_by_needle_bin(tables["accuracy"], exp.variants, chance)
    return figs


__getattr__ = old_names(__name__)  # mean_ci: lostmid_jax._moved.NAMES (warns once, for one release)
