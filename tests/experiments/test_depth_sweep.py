"""sims/depth_sweep.py end to end at smoke size, checked against the theory API."""

import csv
import json
import pathlib
import subprocess
import sys

import pytest

import pandas as pd
from matplotlib.figure import Figure

from lostmid_jax.experiments import depth_sweep, script
from lostmid_jax.runs import load_run
from lostmid_jax.plots.depth_sweep import FIGURES


ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def smoke_run(smoke_runs):
    """The shared `lostmid sweep --smoke` run (tests/conftest.py); read only."""
    return smoke_runs("depth_sweep")


def _rows(run_dir):
    with open(run_dir / "results.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_run_directory_contents(smoke_run):
    names = {p.name for p in smoke_run.iterdir()}
    assert {"config.json", "columns.csv", "results.csv", "profiles.csv", "table.txt", "verdict.txt"} <= names
    assert sorted(n for n in names if n.endswith(".png")) == [f"{stem}.png" for stem in FIGURES]
    config = json.loads((smoke_run / "config.json").read_text())
    assert config["config"]["depths"] == [1, 2, 4, 8, 16, 32]
    assert config["versions"]["jax"]
    verdict = (smoke_run / "verdict.txt").read_text()
    assert "a=1: the factorial law holds exactly" in verdict
    assert all("docs/theory.md §4" in line for line in verdict.splitlines())


def test_load_run_gives_typed_tables_and_documents_every_column(smoke_run):
    run = load_run(smoke_run)
    results, profiles = run.tables["results"], run.tables["profiles"]
    assert set(run.tables) == {"results", "profiles"}
    for name, frame in run.tables.items():
        assert list(frame.columns) == list(depth_sweep.COLUMNS[f"{name}.csv"])
        assert run.columns[name] == {k: tuple(v) for k, v in depth_sweep.COLUMNS[f"{name}.csv"].items()}
    for column in ("alpha", "b", "depth", "length", "recency_weight", "log10_middle_density", "log10_geometric_law",
                   "log10_peak_to_trough"):
        assert pd.api.types.is_numeric_dtype(results[column]), column
    assert results["continuum"].dtype == bool
    assert results.loc[results["continuum"], "length"].isna().all()
    assert (results.loc[~results["continuum"], "length"] == 256).all()
    assert results["continuum"].sum() == len(results) / 2
    # NA only where a law does not apply: the geometric law needs constant 0 < a < 1 and H >= 2
    geometric = (results["schedule"] == "constant") & (results["alpha"] < 1) & (results["depth"] >= 2)
    assert (results["log10_geometric_law"].notna() == geometric).all()
    for column in ("j", "depth", "length"):
        assert pd.api.types.is_integer_dtype(profiles[column]), column
    raw = (smoke_run / "results.csv").read_text().split("\n", 1)[1]  # the data, below the header
    for token in (",nan", ",continuum", ",NA", ",-,", ",none"):
        assert token not in raw


def test_figures_redraw_from_the_saved_tables_alone(smoke_run):
    run = load_run(smoke_run)
    figures = depth_sweep.figures(run.tables, run.config)
    assert tuple(figures) == FIGURES
    assert all(isinstance(f, Figure) and f.axes for f in figures.values())


def test_rerun_is_deterministic(smoke_run, tmp_path):
    script.main("depth_sweep", ["--smoke", "--no-progress", "--no-figures", "--out", str(tmp_path)])
    assert (tmp_path / "results.csv").read_text() == (smoke_run / "results.csv").read_text()


def test_script_runs_as_a_file(tmp_path):
    """python sims/depth_sweep.py --smoke, as the README says (tiny grid for speed)."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "sims" / "depth_sweep.py"), "--smoke", "--no-progress", "--no-figures",
         "--depths", "1,3", "--out", str(tmp_path / "r")],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "Verdict" in result.stdout


def _as_before_the_run_format(run_dir, out):
    """results.csv and verdict.txt of ``run_dir`` in the format the pre-move code wrote: the continuum rows'
    length "continuum" (no continuum column), NA as "nan", verdict lines without their docs citation."""
    with open(run_dir / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        if r.pop("continuum") == "True":
            assert r["length"] == ""
            r["length"] = "continuum"
        r["log10_geometric_law"] = r["log10_geometric_law"] or "nan"
    with open(out / "results.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\r\n")
        writer.writeheader()
        writer.writerows(rows)
    citations = (" (docs/theory.md §4; proofs/08_factorial_middle.md)", " (docs/theory.md §4)")
    lines = (run_dir / "verdict.txt").read_text().splitlines()
    assert all(line.endswith(citations) for line in lines)
    (out / "verdict.txt").write_text("".join(line.removesuffix(citations[0]).removesuffix(citations[1]) + "\n"
                                             for line in lines))
    return out


def test_smoke_outputs_unchanged_by_the_move(smoke_run, golden, tmp_path):
    """results.csv and verdict.txt carry the very numbers the pre-move code wrote for --smoke: mapped back to
    that code's format (continuum flag -> length "continuum", empty -> "nan", no citation). verdict.txt byte
    for byte; results.csv cell for cell within 1e-12 (byte for byte only on a CPU like the one that wrote the
    golden files: another CPU's vector units, and the default run's XLA with most optimizations off
    (tests/conftest.py), round float64 results differently in their last bits)."""
    legacy = _as_before_the_run_format(smoke_run, tmp_path)
    assert "verdict.txt" in golden(legacy, "depth_sweep_smoke", ["results.csv", "verdict.txt"], rtol=1e-12)
