"""Figures of the Step-0 study, drawn from the saved tables alone (the DataFrames of ``load_run``).

    convergence_<preset>   Spearman and W1 (95% CIs) of the closest held-out variant (lowest W1) against the number of
                           held-out seeds, one curve per binning, with the noise ceiling
    variants_<preset>      the held-out mean profile and the theory rows
    layers                 per layer: KL of attention from uniform, measured a_l and g_l / (1 + g_l)
    noise                  per-position relative noise of the n-seed mean against n, one curve per width
"""

from __future__ import annotations


def _stem(preset: str) -> str:
    return preset.replace("-", "_").replace(".", "")


def _best_variant(variants, preset: str) -> str:
    raw = variants[(variants["preset"] == preset) & (variants["raw"].astype(bool))]
    raw = raw.assign(_s=-raw["spearman"]).sort_values(["wasserstein", "_s"])  # as claims.winner
    return str(raw["variant"].iloc[0])


def _bin_label(row) -> str:
    return "raw positions" if bool(row["raw"]) else f"{int(row['bins'])} bins"


def convergence_figure(tables, preset: str):
    from matplotlib.figure import Figure

    from ...analysis.theory_variants import LABELS
    from ...plots.scales import error_lengths

    from ...plots import style
    from ...plots._layout import layout_engine

    variant = _best_variant(tables["variants"], preset)
    conv = tables["convergence"]
    conv = conv[(conv["preset"] == preset) & (conv["variant"] == variant)]
    fig = Figure(figsize=(9.0, 3.6), layout=layout_engine("constrained"))
    ax_s, ax_w = fig.subplots(1, 2)
    groups = list(conv.groupby(["raw", "bins"], sort=False))
    for i, (_, g) in enumerate(groups):
        g = g.sort_values("seeds")
        n = g["seeds"].to_numpy(float)
        kw = style.series(i, len(groups))
        label = _bin_label(g.iloc[0])
        for ax, name in ((ax_s, "spearman"), (ax_w, "wasserstein")):
            y = g[name].to_numpy(float)
            ax.errorbar(n * (1 + 0.03 * i), y, yerr=error_lengths(y, g[f"{name}_lo"], g[f"{name}_hi"]), label=label,
                        capsize=2, **kw)
        ceiling = g["ceiling"].to_numpy(float)
        ax_s.plot(n * (1 + 0.03 * i), ceiling, color=kw["color"], linestyle=":", linewidth=1.0, marker="_",
                  markersize=9, label=f"noise ceiling, {label}")  # a dash per point: one finite point still shows
    ax_s.axhline(0.99, color="black", linewidth=0.8, label="paper: 0.99")
    ax_w.axhline(0.02, color="black", linewidth=0.8, label="paper: 0.02")
    for ax in (ax_s, ax_w):
        style.log_count_axis(ax, "x")
        ax.set_xlabel(r"held-out seeds averaged $n$")
    ax_s.set_ylabel("Spearman vs theory (95% CI)")
    ax_w.set_ylabel(r"Wasserstein-1 vs theory, $W_1$ (95% CI)")
    ax_w.set_yscale("log")
    style.mark_coincident(ax_s)
    ax_s.legend(fontsize=6.5)
    ax_w.legend(fontsize=6.5)
    fig.suptitle(f"{preset}: convergence of the held-out agreement, theory {LABELS[variant]}")
    return fig


def variants_figure(tables, preset: str):
    import numpy as np
    from matplotlib.figure import Figure

    from ...analysis.theory_variants import LABELS, VARIANTS

    from ...plots import style
    from ...plots._layout import layout_engine

    prof = tables["profiles"]
    prof = prof[prof["preset"] == preset].sort_values("j")
    x = prof["x"].to_numpy(float)
    fig = Figure(figsize=(6.4, 4.0), layout=layout_engine("constrained"))
    ax = fig.subplots()
    p, se = prof["p_mean"].to_numpy(float), prof["p_sem"].to_numpy(float)
    ax.fill_between(x, np.maximum(p - 2 * se, p * 1e-3), p + 2 * se, color="0.75", label=r"$\pm 2$ SEM")
    ax.plot(x, p, color="black", linewidth=1.0, label="measured, held-out mean")
    for i, v in enumerate(VARIANTS):
        ax.plot(x, prof[f"theory_{v}"].to_numpy(float), label=LABELS[v], **style.series(i, len(VARIANTS)))
    ax.set_yscale("log")
    ax.set_xlabel(r"$x = j/L$")
    ax.set_ylabel(r"normalized influence $p_j$")
    style.mark_coincident(ax)
    ax.legend()
    ax.set_title(f"{preset}: held-out Step-0 profile and {len(VARIANTS)} theory rows")
    return fig


def layers_figure(tables):
    from matplotlib.figure import Figure

    from ...plots import style
    from ...plots._layout import layout_engine

    layers = tables["layers"]
    names = list(dict.fromkeys(layers["preset"]))
    fig = Figure(figsize=(10.0, 3.6), layout=layout_engine("constrained"))
    ax_kl, ax_a, ax_g = fig.subplots(1, 3)
    for i, name in enumerate(names):
        g = layers[layers["preset"] == name].sort_values("layer")
        kw = style.series(i % len(style.PALETTE), max(len(names), 1) if len(names) <= len(style.PALETTE) else None)
        kw.pop("markevery", None)  # a marker on every layer: a two-layer noise preset keeps its markers
        ax_kl.plot(g["layer"], g["kl"], label=name, **kw)
        ax_a.plot(g["layer"], g["a_measured"], label=f"{name}", **kw)
        ax_g.plot(g["layer"], g["a_jacobian"], label=f"{name}", **kw)
    ax_kl.set_yscale("log")
    ax_kl.set_ylabel(r"KL(attention row $\|$ uniform) [nats]")
    ax_a.set_ylabel(r"measured $a_l$")
    ax_g.set_ylabel(r"$g_l / (1 + g_l)$ from the branch Jacobian")
    for ax in (ax_kl, ax_a, ax_g):
        ax.set_xlabel(r"layer $l$")
        style.integer_ticks(ax, "x")
    style.mark_coincident(ax_kl)  # a noise preset of the main preset's width is the same model
    ax_kl.legend(fontsize=6.5)
    fig.suptitle("Step-0 attention per layer: distance from uniform and strength")
    return fig


def noise_figure(tables):
    from matplotlib.figure import Figure

    from ...plots.scales import error_lengths

    from ...plots import style
    from ...plots._layout import layout_engine

    noise = tables["noise"]
    widths = sorted(set(int(w) for w in noise["width"]))
    fig = Figure(figsize=(8.0, 3.6), layout=layout_engine("constrained"))
    ax_n, ax_w = fig.subplots(1, 2)
    for i, w in enumerate(widths):
        g = noise[noise["width"] == w].sort_values("seeds")
        y = g["rel_noise"].to_numpy(float)
        ax_n.errorbar(g["seeds"], y, yerr=error_lengths(y, g["rel_noise_lo"], g["rel_noise_hi"]), label=rf"$D = {w}$",
                      capsize=2, **style.series(i, len(widths)))
    one = noise[noise["seeds"] == 1].sort_values("width")
    y = one["rel_noise"].to_numpy(float)
    ax_w.errorbar(one["width"], y, yerr=error_lengths(y, one["rel_noise_lo"], one["rel_noise_hi"]), capsize=2,
                  label="one seed", **style.series(0, 1))
    if len(one) >= 2:
        ref = y[0] * (one["width"].to_numpy(float) / float(one["width"].iloc[0])) ** -0.5
        ax_w.plot(one["width"], ref, color="black", linewidth=1.0, linestyle="--", zorder=3,  # over the data
                  label=r"$\propto D^{-1/2}$")
    for ax in (ax_n, ax_w):
        ax.set_yscale("log")
        ax.set_ylabel("per-position relative noise (95% CI)")
        ax.legend(fontsize=7)
    style.log_count_axis(ax_n, "x")
    style.log_count_axis(ax_w, "x")
    ax_n.set_xlabel(r"seeds averaged $n$")
    ax_w.set_xlabel(r"width $D$")
    preset = str(noise["preset"].iloc[0])
    fig.suptitle(f"{preset} at L = {int(noise['length'].iloc[0])}: noise of the Step-0 profile vs seeds and width")
    return fig


def figures(tables: dict, cfg) -> dict:
    """{stem: Figure} (module docstring)."""
    from ...plots import style

    out = {}
    with style.context():
        variants = tables.get("variants")
        if variants is not None:
            for preset in dict.fromkeys(variants["preset"]):
                out[f"convergence_{_stem(preset)}"] = convergence_figure(tables, preset)
                out[f"variants_{_stem(preset)}"] = variants_figure(tables, preset)
        if tables.get("layers") is not None:
            out["layers"] = layers_figure(tables)
        if tables.get("noise") is not None and len(tables["noise"]):
            out["noise"] = noise_figure(tables)
    return out
