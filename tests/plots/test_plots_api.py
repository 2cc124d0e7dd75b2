"""Plot functions return their Figure, draw into given Axes, need no pyplot, and all_figures writes PNGs.

(Proposed as tests/plots/test_plots_api.py; inputs are small synthetic records.)
"""

import subprocess
import sys
import types

import numpy as np
import pytest
from matplotlib.figure import Figure

from lostmid_jax import theory
from lostmid_jax.plots import counterfactuals as pcf
from lostmid_jax.plots import depth_sweep as pds
from lostmid_jax.plots import pretrained_vs_init as ppv
from lostmid_jax.plots import step0 as ps0
from lostmid_jax.plots import training as ptr


def _sweep():
    cfg = types.SimpleNamespace(lengths=(32,), depths=(1, 2, 4), alphas=(0.5, 1.0), band=0.1)
    records = []
    for a in cfg.alphas:
        for h in cfg.depths:
            for length in (32, pds.CONTINUUM):
                if length == pds.CONTINUUM:
                    s = theory.continuum_summary(h, a).as_dict()
                else:
                    s = theory.summarize_log_row(theory.log_influence_row(32, h, a)).as_dict()
                s.update(schedule="constant", alpha=a, depth=h, length=length, log10_factorial_law=-h / 3,
                         log10_geometric_law=np.nan if a == 1.0 or h < 2 else -h / 4)
                records.append(s)
    return cfg, records


def _counterfactual():
    cfg = types.SimpleNamespace(length=32, priors=("causal", "window:4"), profile_depth=4, dead_below=1e-2,
                                schedule_label="a=0.5")
    profiles, records = {}, []
    for spec in cfg.priors:
        prior = theory.parse_prior(spec, 32)
        profiles[spec] = {h: theory.log_influence_row(32, h, 0.5, prior=prior) for h in (1, 4)}
        for h in (1, 4):
            s = theory.summarize_log_row(profiles[spec][h]).as_dict()
            s.update(prior=spec, label=prior.label, depth=h, dead_fraction=0.1)
            records.append(s)
    return types.SimpleNamespace(config=cfg, records=records, profiles=profiles)


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
    rng = np.random.default_rng(1)
    records, rows = [], []
    for v in ("none", "middle_loss"):
        for seed in (0, 1):
            for step in (0, 2):
                r = dict(intervention=v, seed=seed, step=step, total_valley=rng.normal(), total_doc_u=rng.normal(),
                         total_norm=1.0, value_norm=1.0, score_norm=0.1, acc_bin0=0.5, acc_bin1=0.4)
                records.append(r)
                rows += [dict(intervention=v, seed=seed, step=step, total=rng.random() + 0.1) for _ in range(12)]
    exp = types.SimpleNamespace(variants=("none", "middle_loss"), base=types.SimpleNamespace(task="mixed", needle_bins=2))
    return records, rows, exp


def _calls():
    cfg, records = _sweep()
    result = _counterfactual()
    summaries = _step0()
    trecords, trows, exp = _training()
    return [
        (lambda ax: pds.u_curves(cfg, 0.5, ax=ax), 1),
        (lambda ax: pds.middle_vs_depth(records, cfg, ax=ax), 2),
        (lambda ax: pds.mass_shares(records, cfg, ax=ax), 2),
        (lambda ax: pds.peak_to_trough_heatmap(records, cfg, ax=ax), 1),
        (lambda ax: pcf.profiles_figure(result, ax=ax), 2),
        (lambda ax: pcf.valley_figure(result, ax=ax), 2),
        (lambda ax: ps0.overlay("toy", summaries, ax=ax), 4),
        (lambda ax: ps0.heatmap("toy", summaries[("toy", "native")], 2, ax=ax), 4),
        (lambda ax: ppv.profiles_figure({"pretrained": summaries[("toy", "native")], "init": summaries[("toy", "native")]}, "toy", ax=ax), 3),
        (lambda ax: ptr.valley_vs_step(trecords, exp.variants, ax=ax), 1),
        (lambda ax: ptr.pathways_vs_step(trecords, ax=ax), 1),
        (lambda ax: ptr.profiles_at_steps(trows, [0, 6], ax=ax), 1),
        (lambda ax: ptr.accuracy_by_needle_bin(trecords, exp.variants, 2, 0.25, ax=ax), 1),
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


def test_all_figures_write_pngs(tmp_path):
    cfg, records = _sweep()
    paths = pds.all_figures(records, cfg, tmp_path)
    paths += pcf.all_figures(_counterfactual(), tmp_path)
    paths += ps0.all_figures(_step0(), tmp_path)
    trecords, trows, exp = _training()
    paths += ptr.all_figures(trecords, trows, exp, [0, 6], tmp_path, chance=0.25)
    names = sorted(p.name for p in paths)
    assert names == sorted(["fig1_u_curves.png", "fig2_middle_vs_depth.png", "fig3_mass_shares.png",
                            "fig4_peak_to_trough.png", "fig1_profiles.png", "fig2_valley_vs_depth.png",
                            "overlay_toy.png", "heatmap_toy.png", "valley_vs_step.png", "pathways_vs_step.png",
                            "profiles_at_steps.png", "doc_u_vs_step.png", "accuracy_by_needle_bin.png"])
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in paths)


def test_plots_need_no_pyplot_or_backend():
    code = ("import sys, matplotlib\n"
            "import lostmid_jax.plots.depth_sweep, lostmid_jax.plots.counterfactuals, lostmid_jax.plots.step0\n"
            "import lostmid_jax.plots.pretrained_vs_init\n"
            "assert 'matplotlib.pyplot' not in sys.modules\n"
            "assert matplotlib.rcParams._get_backend_or_none() is None, 'a backend was selected'\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
