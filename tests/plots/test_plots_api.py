"""Plot functions return their Figure, draw into given Axes, need no pyplot, and the figures save as PNGs.

Inputs are small synthetic records, or (depth sweep) a tiny sweep's tables read back from its CSV files.
"""

import subprocess
import sys
import types

import numpy as np
import pytest
from matplotlib.figure import Figure
from sweep_tables import sweep_tables, tables_of

from lostmid_jax.experiments import depth_sweep as ds
from lostmid_jax.plots import counterfactuals as pcf
from lostmid_jax.plots import depth_sweep as pds
from lostmid_jax.plots import pretrained_vs_init as ppv
from lostmid_jax.plots import step0 as ps0
from lostmid_jax.plots import training as ptr
from lostmid_jax.plots._layout import save


def _sweep():
    """(cfg, tables) of a tiny depth sweep, read back from its CSV files as load_run reads them."""
    cfg = ds.Config(depths=(1, 2, 4), alphas=(0.5, 1.0), lengths=(32,), power_b=None)
    return cfg, sweep_tables(cfg)


def _counterfactual():
    """(cfg, tables) of a tiny counterfactual sweep, read back from its CSV files as load_run reads them."""
    from lostmid_jax.experiments import counterfactuals as cf

    cfg = cf.Config(length=32, depths=(1, 4), priors=("causal", "window:4", "alibi:16"))
    return cfg, tables_of(cf, cfg)


def _step0():
    rng = np.random.default_rng(0)

    def path():
        p = rng.random(16) + 0.1
        return dict(p=p / p.sum(), p_sem=0.01 * p, norms=p, norms_sem=0.01 * p)

    s = dict(length=16, depth=2, seeds=2, paths={k: path() for k in ("total", "value", "score")},
             theory=dict(measured=np.full(16, 1 / 16), fitted=np.full(16, 1 / 16)), a_fit=0.5,
             spearman_measured=0.9, spearman_fitted=0.9, wasserstein_measured=0.01, wasserstein_fitted=0.01,
             score_fraction_median=1e-3, alphas=np.array([0.4, 0.5]), alphas_sem=np.array([0.01, 0.01]),
             heat=(np.array([0, 1]), rng.random((2, 2, 8, 8)) * np.tril(np.ones((8, 8)))))
    return {("toy", "native"): s}


def _training():
    """(tables, exp): micro-training tables as load_run returns them (snapshots, profiles, accuracy)."""
    import pandas as pd

    rng = np.random.default_rng(1)
    snaps, rows, acc = [], [], []
    for v in ("none", "middle_weighted_loss"):
        for seed in (0, 1):
            for step in (0, 2):
                snaps.append(dict(intervention=v, seed=seed, step=step, total_valley=rng.normal(),
                                  total_doc_u=rng.normal(), total_norm=1.0, value_norm=1.0, score_norm=0.1))
                acc += [dict(intervention=v, seed=seed, step=step, bin=b, x=(b - 0.5) / 2, accuracy=a)
                        for b, a in ((1, 0.5), (2, 0.4))]
                rows += [dict(intervention=v, seed=seed, step=step, j=j, x=j / 12, total=rng.random() + 0.1)
                         for j in range(1, 13)]
    exp = types.SimpleNamespace(variants=("none", "middle_weighted_loss"), base=types.SimpleNamespace(task="mixed", needle_bins=2))
    return {"snapshots": pd.DataFrame(snaps), "profiles": pd.DataFrame(rows), "accuracy": pd.DataFrame(acc)}, exp


def _compare_tables():
    """(profiles, alphas, metrics) tables of the pretrained-vs-init comparison."""
    import pandas as pd

    p = np.linspace(1.0, 2.0, 16) / np.linspace(1.0, 2.0, 16).sum()
    profiles = pd.DataFrame([dict(model=m, j=j, x=j / 16, p_mean=p[j - 1], p_sem=0.01 * p[j - 1],
                                  theory_measured=1 / 16, theory_fitted=1 / 16)
                             for m in ("pretrained", "init") for j in range(1, 17)])
    alphas = pd.DataFrame([dict(model=m, layer=l, a_mean=0.4, a_sem=0.01) for m in ("pretrained", "init") for l in (1, 2)])
    return profiles, alphas, pd.DataFrame([dict(model="pretrained", a_fit=0.5), dict(model="init", a_fit=0.5)])


def _calls():
    cfg, tables = _sweep()
    cf_cfg, cf_tables = _counterfactual()
    summaries = _step0()
    ttables, exp = _training()
    return [
        (lambda ax: pds.u_curves(tables["profiles"], ax=ax), 1),
        (lambda ax: pds.middle_vs_depth(tables["results"], cfg, ax=ax), 3),
        (lambda ax: pds.mass_shares(tables["results"], cfg, ax=ax), 2),
        (lambda ax: pds.peak_to_trough_heatmap(tables["results"], cfg, ax=ax), 1),
        (lambda ax: pcf.profiles_figure(cf_tables["profiles"], cf_tables["results"], cf_cfg, ax=ax), 3),
        (lambda ax: pcf.valley_figure(cf_tables["results"], cf_cfg, ax=ax), 2),
        (lambda ax: ps0.overlay("toy", summaries, ax=ax), 4),
        (lambda ax: ps0.heatmap("toy", summaries[("toy", "native")], 2, ax=ax), 4),
        (lambda ax: ppv.profiles_figure(*_compare_tables(), "toy", ax=ax), 3),
        (lambda ax: ptr.valley_vs_step(ttables["snapshots"], exp.variants, ax=ax), 1),
        (lambda ax: ptr.pathways_vs_step(ttables["snapshots"], ax=ax), 1),
        (lambda ax: ptr.profiles_at_steps(ttables["profiles"], [0, 6], ax=ax), 1),
        (lambda ax: ptr.accuracy_by_needle_bin(ttables["accuracy"], exp.variants, 0.25, ax=ax), 1),
    ]


@pytest.mark.parametrize("index", range(13))
def test_returns_figure_and_draws_into_given_axes(index):
    call, panels = _calls()[index]
    own = call(None)
    assert isinstance(own, Figure) and own.axes
    fig = Figure()
    axes = fig.subplots(2, 2).ravel()[:panels] if panels == 4 else fig.subplots(1, panels, squeeze=False).ravel()
    axes = list(axes)
    out = call(axes[0] if panels == 1 else axes)
    assert out is fig
    assert all(ax.has_data() or ax.images or ax.collections for ax in axes)


@pytest.mark.extended  # every figure drawn and saved as PNG: the costliest plots test
def test_all_figures_write_pngs(tmp_path):
    cfg, tables = _sweep()
    figures = pds.figures(tables, cfg)
    assert tuple(figures) == pds.FIGURES and all(isinstance(f, Figure) for f in figures.values())
    paths = [save(f, tmp_path / f"{stem}.png") for stem, f in figures.items()]
    cf_cfg, cf_tables = _counterfactual()
    paths += [save(f, tmp_path / f"{stem}.png") for stem, f in pcf.figures(cf_tables, cf_cfg).items()]
    paths += ps0.all_figures(_step0(), tmp_path)
    ttables, exp = _training()
    paths += [save(f, tmp_path / f"{stem}.png") for stem, f in
              ptr.all_figures(ttables, exp, boundaries=[0, 6], chance=0.25).items()]
    names = sorted(p.name for p in paths)
    assert names == sorted(["fig1_u_curves.png", "fig2_middle_vs_depth.png", "fig3_mass_shares.png",
                            "fig4_peak_to_trough.png", "fig1_profiles.png", "fig2_valley_vs_depth.png", "fig3_family_dead_zone.png",
                            "overlay_toy.png", "heatmap_toy.png", "fig1_valley.png", "fig2_pathways.png",
                            "fig3_profiles.png", "fig4_doc_u.png", "fig5_accuracy.png"])
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in paths)


def test_plots_need_no_pyplot_or_backend():
    code = ("import sys, matplotlib\n"
            "import lostmid_jax.plots.depth_sweep, lostmid_jax.plots.counterfactuals, lostmid_jax.plots.step0\n"
            "import lostmid_jax.plots.pretrained_vs_init\n"
            "assert 'matplotlib.pyplot' not in sys.modules\n"
            "assert matplotlib.rcParams._get_backend_or_none() is None, 'a backend was selected'\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
