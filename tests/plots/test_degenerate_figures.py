"""Degenerate results still draw (issue 33): accuracies of exactly 0 and 1 with the bounds a table holds for them
(a Wilson lower end 2.8e-17 above 0, as runs written before the fix have), zero-width intervals and NaN cells,
in every figure of every experiment; and a figure that cannot be drawn never fails a run whose tables are
written.

The default run draws the remedies and diagnose figures from small synthesized tables (the issue's crash:
`lostmid remedies` on an untrained model); every experiment's smoke tables, made degenerate, run under
-m extended (CI runs it).
"""

import json
import logging
import pathlib
import sys
import types

import numpy as np
import pytest
from full_size_tables import diagnose_tables, remedies_tables
from matplotlib.backends.backend_agg import FigureCanvasAgg

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "runs"))
from run_params import experiment_params  # noqa: E402

from lostmid_jax.experiments import diagnose, remedies  # noqa: E402

KEYS = {"x", "j", "i", "alpha", "b", "depth", "length", "layer", "head", "passage", "step", "seed", "bin", "query_bin",
        "key_bin", "seeds", "width", "bins", "fact_x", "query_x", "key_x", "chance", "examples", "middle_x",
        "valley_x", "continuum", "raw_positions", "candidates"}
"""Columns that place a row (positions, depths, counts): kept; every other number may be NaN."""
RATES = ("accuracy", "exact")
"""Columns of rates in [0, 1]: set to 0 and 1 in turn."""
EPS = 2.8e-17  # the Wilson lower end that used to sit above an accuracy of 0


def degenerate(tables: dict) -> dict:
    """The tables with every rate 0 or 1 (bounds a hair on the wrong side, as rounding left them), every other
    interval of zero width, and the second row of every measured number NaN."""
    out = {}
    for stem, table in tables.items():
        table = table.copy()
        for col in [c for c in table.columns if f"{c}_lo" in table.columns and f"{c}_hi" in table.columns]:
            value = table[col].to_numpy(float).copy()
            if col in RATES:
                value = (np.arange(len(table)) % 2).astype(float)
                table[col], table[f"{col}_lo"] = value, np.where(value == 0, EPS, 1.0)
                table[f"{col}_hi"] = np.where(value == 1, 1 - 1.1e-16, 0.0)
            else:
                table[f"{col}_lo"] = table[f"{col}_hi"] = value
        if len(table) > 1:
            for col in table.columns:
                if col not in KEYS and table[col].dtype.kind == "f":
                    table.loc[table.index[1], col] = np.nan
        out[stem] = table
    return out


def _draw_all(figures: dict) -> int:
    for stem, fig in figures.items():
        FigureCanvasAgg(fig).draw()  # errors of layout and drawing show here, not only at savefig
    return len(figures)


CFG = types.SimpleNamespace(title="untrained", band=0.1)


def test_the_degenerate_tables_hold_what_they_claim():
    tables = degenerate(remedies_tables(length=64))
    acc = tables["accuracy"]
    assert set(acc["accuracy"].dropna()) == {0.0, 1.0}
    assert (acc["accuracy_lo"] > acc["accuracy"]).any() and (acc["accuracy_hi"] < acc["accuracy"]).any()
    eff = tables["effects"]
    assert (eff["middle_lo"].dropna() == eff["middle"].dropna()).all()
    nan_rows = set(eff.index[eff["middle"].isna()])  # the second row made NaN here, and the no-op (never measured)
    assert nan_rows == {eff.index[1], *eff.index[eff["verdict"] == "no-op at this length"]} and len(nan_rows) == 2


@pytest.mark.parametrize("module, tables", [(remedies, lambda: remedies_tables(length=64)),
                                            (diagnose, lambda: diagnose_tables(layers=2, length=64, bins=8))],
                         ids=["remedies", "diagnose"])
def test_degenerate_remedies_and_diagnose_tables_draw(module, tables):
    """The issue's crash: 'yerr' must not contain negative values, at an accuracy of 0."""
    assert _draw_all(module.figures(degenerate(tables()), CFG)) >= 3


@pytest.mark.extended
@pytest.mark.parametrize("name", experiment_params())
def test_every_figure_of_every_experiment_draws_from_degenerate_tables(name, smoke_runs):
    from lostmid_jax.runs import load_run
    from lostmid_jax.present.plot import draw_figures

    run = load_run(smoke_runs(name))
    drawn = _draw_all(draw_figures(run.module, degenerate(run.tables), run.config))
    assert drawn, name
    print(f"degenerate tables: {drawn} figures of {name} drawn")


def test_a_figure_that_fails_leaves_the_run_done(tmp_path, monkeypatch, caplog):
    """A figure that raises costs the run its figure, not its status: config.json says done, the other figures
    are saved, and one warning line names the figure and the error."""
    from lostmid_jax import experiments
    from lostmid_jax.experiments import depth_sweep
    from lostmid_jax.plots import depth_sweep as pds

    def mass_shares(*args, **kwargs):  # a stand-in that fails as the old figures did at an accuracy of 0
        raise ValueError("'yerr' must not contain\nnegative values")

    monkeypatch.setattr(pds, "mass_shares", mass_shares)
    cfg = depth_sweep.Config(depths=(1, 2), alphas=(0.5,), lengths=(8,), power_b=None)
    with caplog.at_level(logging.WARNING, logger="lostmid_jax.experiments"):
        experiments.execute(depth_sweep, cfg, tmp_path / "run", progress=False, echo=None)
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config["status"] == "done" and config["figures"] == []
    assert (tmp_path / "run" / "results.csv").is_file()
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(lines) == 1 and "\n" not in lines[0]
    assert "mass_shares: ValueError: 'yerr' must not contain negative values" in lines[0]
    assert f"lostmid plot {tmp_path / 'run'}" in lines[0]


def test_a_figure_that_fails_to_save_leaves_the_others(tmp_path, monkeypatch, caplog):
    from matplotlib.figure import Figure

    from lostmid_jax import experiments
    from lostmid_jax.experiments import depth_sweep
    from lostmid_jax.plots import depth_sweep as pds

    def unsaveable(*args, **kwargs):
        fig = Figure()
        fig.subplots().set_title("$\\unknowncommand{x}$")  # mathtext that fails only when drawn
        return fig

    monkeypatch.setattr(pds, "u_curves", unsaveable)
    cfg = depth_sweep.Config(depths=(1, 2), alphas=(0.5,), lengths=(8,), power_b=None)
    with caplog.at_level(logging.WARNING, logger="lostmid_jax.experiments"):
        experiments.execute(depth_sweep, cfg, tmp_path / "run", progress=False, echo=None)
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config["status"] == "done"
    assert sorted(config["figures"]) == ["fig2_middle_vs_depth.png", "fig3_mass_shares.png", "fig4_peak_to_trough.png"]
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(lines) == 1 and "figure fig1_u_curves not saved" in lines[0] and "ValueError" in lines[0]
    assert not (tmp_path / "run" / "fig1_u_curves.png").exists()
