"""`lostmid plot RUN_DIR`: every figure of a run redrawn from its saved files alone."""

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from matplotlib.image import imread

from lostmid_jax import cli
from lostmid_jax.experiments import EXPERIMENTS

ROOT = pathlib.Path(__file__).resolve().parents[2]


# extended: two commands in their own processes (~40 s). It was moved to slow when step0's heat map of a run
# differed from its redraw in ~120 pixels (glyphs of one strip label): constrained layout's positions differ in
# the last bits with the process's memory, and that label's glyphs sit on 1/64-pixel ties. plots._layout.SettledLayout
# rounds the positions (tests/plots/test_layout.py draws the heat map after different allocations).
@pytest.mark.extended
def test_a_command_line_run_and_its_redraw_are_pixel_identical(tmp_path):
    """`lostmid step0` then `lostmid plot`, each its own process: every PNG redrawn equals the run's."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))}
    run_dir = tmp_path / "run"
    for args in (["step0", "--preset", "toy", "--length", "16", "--seeds", "2", "--variants", "native,nopos",
                  "--heat-length", "8", "--n-boot", "200", "--no-progress", "--out", str(run_dir)],
                 ["plot", str(run_dir), "--format", "png", "--out", str(tmp_path / "redrawn")]):
        proc = subprocess.run([sys.executable, "-m", "lostmid_jax.cli", *args], capture_output=True, text=True,
                              timeout=300, env=env)
        assert proc.returncode == 0, proc.stderr[-2000:]
    saved = sorted(p.name for p in run_dir.glob("*.png"))
    assert "heatmap_toy.png" in saved
    for png in saved:
        np.testing.assert_array_equal(imread(tmp_path / "redrawn" / png), imread(run_dir / png), err_msg=png)


# Every redraw runs under -m extended (CI runs it); the default run redraws depth_sweep's figures in
# tests/experiments/test_depth_sweep.py::test_figures_redraw_from_the_saved_tables_alone, and the runner
# already draws every experiment's figures from its saved tables in the shared smoke runs.
@pytest.mark.extended
@pytest.mark.parametrize("name", EXPERIMENTS)
def test_plot_redraws_every_figure_of_a_run(name, smoke_runs, tmp_path):
    """--format pdf,png from the CSV files and config.json: one PDF per saved figure, and the PNG
    redraw is pixel for pixel the figure the run saved (the runner draws from the reloaded tables too)."""
    run_dir = smoke_runs(name)
    saved = sorted(json.loads((run_dir / "config.json").read_text())["figures"])
    assert saved and all(f.endswith(".png") for f in saved)
    before = {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()}
    formats = "pdf,png,svg" if name == "depth_sweep" else "pdf,png"
    assert cli.main(["plot", str(run_dir), "--format", formats, "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.glob("*.pdf")) == [f.replace(".png", ".pdf") for f in saved]
    assert sorted(p.name for p in tmp_path.glob("*.png")) == saved
    for pdf in tmp_path.glob("*.pdf"):
        assert pdf.read_bytes().startswith(b"%PDF") and pdf.stat().st_size > 1000
    for svg in tmp_path.glob("*.svg"):
        assert svg.read_text().lstrip().startswith("<?xml") and svg.stem + ".png" in saved
    for png in saved:
        np.testing.assert_array_equal(imread(tmp_path / png), imread(run_dir / png), err_msg=png)
    assert {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()} == before  # the run is untouched
    assert not list(tmp_path.glob(".*"))  # no temporary files left


def test_plot_writes_beside_the_run_by_default(smoke_runs, tmp_path, monkeypatch):
    """No --out: the redrawn files go into the run directory (a stand-in figure keeps this test quick)."""
    import shutil

    from matplotlib.figure import Figure

    from lostmid_jax.present import plot

    def draw(run):
        fig = Figure(figsize=(1, 1))
        fig.subplots().plot(run.tables["results"]["depth"])
        return {"redrawn": fig}

    copy = tmp_path / "run"
    shutil.copytree(smoke_runs("depth_sweep"), copy)
    monkeypatch.setattr(plot, "draw", draw)
    assert cli.main(["plot", str(copy), "--format", "svg,pdf"]) == 0
    assert (copy / "redrawn.svg").read_text().lstrip().startswith("<?xml")
    assert (copy / "redrawn.pdf").read_bytes().startswith(b"%PDF")
    # the same run named by a relative path, "." from inside it, and a symlink: still the run itself
    (tmp_path / "link").symlink_to(copy, target_is_directory=True)
    for where, name in ((tmp_path, "run"), (copy, "."), (tmp_path, "link")):
        (copy / "redrawn.svg").unlink()
        monkeypatch.chdir(where)
        assert cli.main(["plot", name, "--format", "svg"]) == 0
        assert (copy / "redrawn.svg").is_file()
    # another run as --out is still refused, and the message names the flag the user gave
    other = tmp_path / "other"
    shutil.copytree(copy, other)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        cli.main(["plot", "run", "--format", "svg", "--out", "other"])
    assert exc.value.code == 2


@pytest.mark.parametrize("argv,message", [
    (["--format", "gif"], "--format"),
    (["--format", ""], "--format"),
])
def test_plot_refuses_bad_formats(argv, message, smoke_runs, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["plot", str(smoke_runs("depth_sweep")), *argv, "--out", str(tmp_path)])
    assert exc.value.code == 2 and message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_plot_refuses_a_directory_that_is_not_a_run(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["plot", str(tmp_path)])
    assert exc.value.code == 2 and "no config.json" in capsys.readouterr().err


def test_file_list_titles_are_plain_text_with_separated_lines():
    from matplotlib.figure import Figure

    from lostmid_jax.present.plot import figure_title

    fig = Figure()
    fig.subplots().set_title("toy: $\\|\\partial y_L / \\partial x_j\\|_F$ vs theory\n"
                             "Spearman 0.867 [0.682, 1.000] ($\\log_{10}$ $\\rho_H(1/2)$)")
    title = figure_title(fig)
    assert "\\" not in title and "$" not in title and "{" not in title
    assert title == "toy: \u2016\u2202 y_L / \u2202 x_j\u2016_F vs theory | Spearman 0.867 [0.682, 1.000] (log10 \u03c1_H(1/2))"
