"""Every figure of every experiment reads cleanly (tests/plots/layout_check.py): no two texts overlap, none
leaves the figure, no axis repeats a tick label; drawn from each experiment's smoke run and from tables at
the default runs' full size (tests/plots/full_size_tables.py). The check itself fails on a figure made to
overlap.

The default run checks the figures this check was written for (fig4 of the main job at full size, the
diagnose heat map, the remedies' effects and attention figures at full size), one cheap full-size figure each
of the train and compare runs, and the companion tests; every
figure of every experiment, smoke and full size, runs under -m extended (CI runs it).
"""

import pathlib
import sys
import types

import numpy as np
import pytest
import full_size_tables as fst
from full_size_tables import depth_sweep_tables, diagnose_tables, remedies_tables
from layout_check import count_texts, layout_problems
from matplotlib.figure import Figure
from matplotlib.ticker import FixedFormatter, FixedLocator

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "runs"))
from run_params import experiment_params  # noqa: E402

from lostmid_jax.experiments import EXPERIMENTS, load  # noqa: E402

FULL_CFG = types.SimpleNamespace(title="qwen2-0.5b", band=0.1)
FULL = {"depth_sweep": lambda: (depth_sweep_tables(), FULL_CFG), "diagnose": lambda: (diagnose_tables(), FULL_CFG),
        "remedies": lambda: (remedies_tables(), FULL_CFG), "step0": lambda: (fst.step0_tables(), None),
        "step0_study": lambda: (fst.step0_study_tables(), None), "counterfactuals": fst.counterfactuals_tables,
        "pretrained_vs_init": lambda: (fst.pretrained_vs_init_tables(), FULL_CFG),
        "micro_training": fst.micro_training_tables}
"""Experiment -> () -> (tables, cfg) at the size of its default run (tests/plots/full_size_tables.py)."""


def _assert_clean(figures: dict, where: str) -> int:
    """Check every figure; fail with every problem of every figure. Returns how many figures were checked."""
    found = {stem: layout_problems(fig) for stem, fig in figures.items()}
    bad = {stem: problems for stem, problems in found.items() if problems}
    assert not bad, "\n".join(f"{where}/{stem}: {p}" for stem, problems in bad.items() for p in problems[:6])
    print(f"layout check: {len(figures)} figures of {where} checked, no problem")
    return len(figures)


# --- the check itself -------------------------------------------------------------------------------------

def _plain_figure() -> Figure:
    fig = Figure(figsize=(4, 3), layout="constrained")
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1])
    ax.set(title="a clean figure", xlabel="x", ylabel="y")
    return fig


def test_the_check_passes_a_clean_figure():
    fig = _plain_figure()
    assert layout_problems(fig) == [] and count_texts(fig) >= 5  # title, labels, ticks: it looked at text


def test_the_check_fails_on_overlapping_texts():
    fig = _plain_figure()
    ax = fig.axes[0]
    ax.text(0.5, 0.5, "first label here", transform=ax.transAxes)
    ax.text(0.52, 0.51, "second label here", transform=ax.transAxes)
    problems = layout_problems(fig)
    assert len(problems) == 1 and "'first label here' and 'second label here' overlap" in problems[0]


def test_the_check_fails_on_a_text_outside_the_figure():
    fig = _plain_figure()
    fig.axes[0].text(1.3, 0.5, "beyond the edge", transform=fig.axes[0].transAxes)
    problems = layout_problems(fig)
    assert len(problems) == 1 and "'beyond the edge' leaves the figure" in problems[0]


def test_the_check_fails_on_repeated_tick_labels():
    """The toy notebook's y axis: 0.999, 0.9995, 1, 1, 1.001 (too few digits for the ticks)."""
    fig = _plain_figure()
    ax = fig.axes[0]
    ax.set_ylim(0.998, 1.002)
    ax.yaxis.set_major_locator(FixedLocator([0.999, 0.9995, 1.0, 1.0005, 1.001]))
    ax.yaxis.set_major_formatter(FixedFormatter(["0.999", "0.9995", "1", "1", "1.001"]))
    problems = layout_problems(fig)
    assert len(problems) == 1 and "tick labels repeat on y" in problems[0] and "1, 1, 1.001" in problems[0]


def test_the_check_ignores_what_is_not_drawn():
    """Hidden Axes, empty strings and tick labels outside the view are not text a reader sees."""
    fig = _plain_figure()
    hidden = fig.add_axes((0.4, 0.4, 0.2, 0.2))
    hidden.set_title("hidden and overlapping")
    hidden.set_visible(False)
    fig.axes[0].text(0.5, 0.5, "", transform=fig.axes[0].transAxes)
    assert layout_problems(fig) == []


# --- the figures ------------------------------------------------------------------------------------------

def test_full_size_fig4_and_changed_maps_read_cleanly():
    """The main job's fig4 (66 depths x 5 weights at L = 2048), the diagnose heat map of a 64-bin run, and
    the remedies' effects and attention figures with the eight default remedies."""
    from lostmid_jax.plots import depth_sweep as pds
    from lostmid_jax.plots import diagnose as pdg
    from lostmid_jax.plots import remedies as prm

    heat = diagnose_tables()["heatmap"]
    grid = np.full((64, 64), np.nan)
    grid[heat["query_bin"], heat["key_bin"]] = heat["ratio"]
    rem = remedies_tables()
    figures = {"fig4_peak_to_trough": pds.peak_to_trough_heatmap(depth_sweep_tables()["results"]),
               "diagnose/fig3_heatmap": pdg.attention_heatmap(grid, title="qwen2-0.5b: layer 24 against uniform"),
               "remedies/fig2_effects": prm.effects(rem["effects"]),
               "remedies/fig3_received": prm.received_by_remedy(rem["received"])}
    assert _assert_clean(figures, "full size") == 4


def test_full_size_training_and_compare_figures_read_cleanly():
    """One cheap figure each of the default train run (four interventions side by side over eight steps) and of
    the default compare run (two 24-layer models at L = 256)."""
    from lostmid_jax.plots import pretrained_vs_init as ppv
    from lostmid_jax.plots import training as ptr

    train, _ = fst.micro_training_tables()
    compare = fst.pretrained_vs_init_tables()
    figures = {"micro_training/fig2_pathways": ptr.pathways_vs_step(train["snapshots"]),
               "pretrained_vs_init/fig1_profiles": ppv.profiles_figure(compare["profiles"], compare["alphas"],
                                                                       compare["metrics"], "qwen2-0.5b")}
    assert _assert_clean(figures, "full size") == 2


@pytest.mark.extended
@pytest.mark.parametrize("name", sorted(FULL))
def test_every_figure_at_full_size_reads_cleanly(name):
    tables, cfg = FULL[name]()
    figures = load(name).figures(tables, cfg)
    assert len(figures) >= {"pretrained_vs_init": 1, "step0": 4, "step0_study": 6}.get(name, 3)
    _assert_clean(figures, f"{name} (full size)")


@pytest.mark.extended
@pytest.mark.parametrize("name", experiment_params())
def test_every_figure_of_a_smoke_run_reads_cleanly(name, smoke_runs):
    from lostmid_jax.runs import load_run
    from lostmid_jax.present.plot import draw

    figures = draw(load_run(smoke_runs(name)))
    assert figures, name
    _assert_clean(figures, f"{name} (smoke)")


def test_every_experiment_is_checked():
    assert {getattr(p, "values", (p,))[0] for p in experiment_params()} == set(EXPERIMENTS)
    assert set(FULL) == set(EXPERIMENTS)
