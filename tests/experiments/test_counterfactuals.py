"""sims/counterfactuals.py end to end at smoke size, its numbers re-derived from the theory API.

The run directory follows the run format: every CSV column is in the module's COLUMNS, positions are
1-based (j, with x = j/L), missing values are empty fields, the figures are drawn from the saved CSVs
alone, and the verdict cites docs/theory.md.
"""

import csv
import json
import math
import pathlib

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from lostmid_jax import cli
from lostmid_jax.experiments import counterfactuals as cf
from lostmid_jax.masks.text import default_priors


ROOT = pathlib.Path(__file__).resolve().parents[2]
COLUMNS = {
    "prior", "label", "family", "depth", "schedule", "length", "recency_weight", "primacy_mass", "middle_mass", "late_mass",
    "middle_x", "log10_middle_density", "valley_x", "log10_valley_density", "log10_peak_to_trough",
    "dead_fraction", "zero_fraction", "dead_x_min", "dead_x_max", "dead_x_mean", "log10_min_density",
}


@pytest.fixture(scope="module")
def smoke_run(smoke_runs):
    """The shared run of `python sims/counterfactuals.py --smoke` as a file (tests/conftest.py AS_FILE), and
    its stdout; read only."""
    run_dir = smoke_runs("counterfactuals")
    return run_dir, smoke_runs.stdout["counterfactuals"]


def _rows(run_dir):
    with open(run_dir / "results.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_run_directory_contents(smoke_run):
    run_dir, stdout = smoke_run
    names = {p.name for p in run_dir.iterdir()}
    assert {"config.json", "results.csv", "profiles.csv", "columns.csv", "table.txt", "verdict.txt", "fig1_profiles.png",
            "fig2_valley_vs_depth.png", "fig3_family_dead_zone.png"} <= names
    config = json.loads((run_dir / "config.json").read_text())
    assert config["config"]["length"] == 128 and config["config"]["depths"] == [1, 4, 16]
    assert config["config"]["priors"] == list(cf.default_priors(128))
    assert config["config"]["priors"][:7] == list(default_priors(128))  # one of each mask first
    assert {"alibi:16", "alibi:32", "alibi:112", "alibi:112:geometric", "window:4096", "content:diag=2.0",
            "sinks:4:16"} <= set(config["config"]["priors"])
    assert config["versions"]["numpy"] and "git_revision" in config
    rows = _rows(run_dir)
    assert COLUMNS <= set(rows[0])
    assert len(rows) == len(cf.default_priors(128)) * 3
    assert "Verdict" in stdout and (run_dir / "table.txt").read_text().strip() in stdout


def test_every_column_is_documented_and_typed(smoke_run):
    run_dir, _ = smoke_run
    for name in ("results.csv", "profiles.csv"):
        table = pd.read_csv(run_dir / name)
        assert set(table.columns) == set(cf.COLUMNS[name]), name
        for column, (meaning, unit) in cf.COLUMNS[name].items():
            assert meaning and isinstance(unit, str)
        text = (run_dir / name).read_text()
        assert not any(bad in text.split(",") for bad in ("nan", "NA", "-", "none", "None"))
    results, profiles = pd.read_csv(run_dir / "results.csv"), pd.read_csv(run_dir / "profiles.csv")
    for column in ("depth", "length", "dead_fraction", "dead_x_min", "log10_middle_density"):
        assert pd.api.types.is_numeric_dtype(results[column]), column
    assert results["dead_x_min"].isna().any() and not results["dead_x_min"].isna().all()  # empty where no dead zone
    assert profiles["j"].min() == 1 and profiles["j"].max() == 128  # 1-based, the last token included
    np.testing.assert_allclose(profiles["x"], profiles["j"] / profiles["length"], rtol=1e-15)
    fam = results.dropna(subset=["family"])
    assert set(fam["prior"]) == set(cf.FAMILIES.values())


def test_figures_drawn_from_the_saved_tables_alone(smoke_run):
    run_dir, _ = smoke_run
    tables = {name: pd.read_csv(run_dir / f"{name}.csv") for name in ("results", "profiles")}
    cfg = cf.Config(**{k: v for k, v in json.loads((run_dir / "config.json").read_text())["config"].items()})
    figures = cf.figures(tables, cfg)
    assert set(figures) == {"fig1_profiles", "fig2_valley_vs_depth", "fig3_family_dead_zone"}
    assert all(isinstance(f, Figure) and f.axes for f in figures.values())
    bars = figures["fig3_family_dead_zone"].axes[0].patches
    at = tables["results"][tables["results"]["depth"] == 16].set_index("prior")
    assert [round(b.get_width(), 9) for b in bars] == [round(100 * at.loc[spec, "dead_fraction"], 9)
                                                       for spec in cf.FAMILIES.values()]


def test_subcommand_registers_and_runs(tmp_path):
    assert cli.main(["counterfactuals", "--smoke", "--no-progress", "--no-figures", "--priors", "causal,alibi:2",
                     "--depths", "2,3", "--out", str(tmp_path)]) == 0
    assert [(r["prior"], r["depth"]) for r in _rows(tmp_path)] == [("causal", "2"), ("causal", "3"), ("alibi:2", "2"), ("alibi:2", "3")]


def test_smoke_outputs_unchanged_by_the_move(smoke_run):
    """The rows of the priors the pre-move code swept equal its results.csv (on its columns; missing values were
    written "nan" then and are empty now), and its per-prior verdict lines are unchanged."""
    golden = ROOT / "tests" / "data" / "golden"

    def same(old: str, new: str) -> bool:  # equal text, or numbers within 1e-12 (NaN: the empty field now)
        if old == new:
            return True
        try:
            a, b = float(old), float(new)
        except ValueError:
            return False
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300)

    run_dir, _ = smoke_run
    with open(golden / "counterfactuals_smoke_results.csv", newline="") as f:
        old_rows = list(csv.DictReader(f))
    new_rows = {(r["prior"], r["depth"]): r for r in _rows(run_dir)}
    for old in old_rows:
        new = new_rows[(old["prior"], old["depth"])]
        for column, value in old.items():
            cell = "nan" if new[column] == "" else new[column]
            assert same(value, cell), (old["prior"], old["depth"], column, value, new[column])
    old_verdict = (golden / "counterfactuals_smoke_verdict.txt").read_text().splitlines()
    new_verdict = (run_dir / "verdict.txt").read_text().splitlines()
    for line in old_verdict[1:-1]:  # the first line now cites docs/theory.md; the summary lists the new priors too
        assert line in new_verdict, line
