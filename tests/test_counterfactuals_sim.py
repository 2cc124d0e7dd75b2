"""sims/counterfactuals.py end to end at smoke size, its numbers re-derived from the theory API."""

import csv
import json
import math
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from lostmid_jax import theory
from lostmid_jax import cli
from lostmid_jax.experiments import script
from lostmid_jax.theory.prior_specs import default_priors, parse_prior

ROOT = pathlib.Path(__file__).resolve().parents[1]
COLUMNS = {
    "prior", "label", "depth", "schedule", "length", "recency_weight", "primacy_mass", "middle_mass", "late_mass",
    "middle_x", "log10_middle_density", "valley_x", "log10_valley_density", "log10_peak_to_trough",
    "dead_fraction", "zero_fraction", "dead_x_min", "dead_x_max", "dead_x_mean", "log10_min_density",
}


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("counterfactuals") / "run"
    proc = subprocess.run([sys.executable, str(ROOT / "sims" / "counterfactuals.py"), "--smoke", "--no-progress", "--out", str(out)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return out, proc.stdout


def _rows(run_dir):
    with open(run_dir / "results.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_run_directory_contents(smoke_run):
    run_dir, stdout = smoke_run
    names = {p.name for p in run_dir.iterdir()}
    assert {"config.json", "results.csv", "table.txt", "verdict.txt", "fig1_profiles.png", "fig2_valley_vs_depth.png"} <= names
    config = json.loads((run_dir / "config.json").read_text())
    assert config["config"]["length"] == 128 and config["config"]["depths"] == [1, 4, 16]
    assert config["config"]["priors"] == list(default_priors(128))
    assert config["versions"]["numpy"] and "git_revision" in config
    rows = _rows(run_dir)
    assert COLUMNS <= set(rows[0])
    assert len(rows) == 7 * 3
    assert "Verdict" in stdout and (run_dir / "table.txt").read_text().strip() in stdout


def test_every_number_reproduced_by_theory_api(smoke_run):
    run_dir, _ = smoke_run
    for r in _rows(run_dir):
        length, depth = int(r["length"]), int(r["depth"])
        prior = parse_prior(r["prior"], length)
        assert r["label"] == prior.label
        log_row = theory.log_influence_row(length, depth, 0.5, prior=prior)
        summary = theory.summarize_log_row(log_row).as_dict()
        for key, value in summary.items():
            assert float(r[key]) == pytest.approx(value, rel=1e-12, abs=1e-300), (r["prior"], depth, key)
        density = length * np.asarray(theory.influence_row(length, depth, 0.5, prior=prior))[:-1]  # float64, j < L
        dead = density < 0.01
        x = np.arange(1, length) / length
        assert float(r["dead_fraction"]) == pytest.approx(dead.mean(), abs=1e-15)
        assert float(r["zero_fraction"]) == pytest.approx(np.mean(density == 0), abs=1e-15)
        if dead.any():
            assert (float(r["dead_x_min"]), float(r["dead_x_max"])) == (x[dead].min(), x[dead].max())
        else:
            assert math.isnan(float(r["dead_x_min"]))


def test_verdict_follows_the_numbers(smoke_run):
    """Bidirectional rows are flat (w_j = (1 - (1-a)^H) / L below the last token): no dead zone."""
    run_dir, _ = smoke_run
    text = (run_dir / "verdict.txt").read_text()
    assert "bidirectional: removes the dead zone" in text
    flat = [r for r in _rows(run_dir) if r["prior"] == "bidirectional"]
    assert all(float(r["dead_fraction"]) == 0 for r in flat)
    chunk = next(r for r in _rows(run_dir) if r["prior"].startswith("chunks") and r["depth"] == "16")
    assert f"{float(chunk['zero_fraction']):.0%} exactly 0" in text  # earlier chunks: no path to the last token


@pytest.mark.parametrize(
    "argv,name",
    [
        (["--priors", "causal,window:0"], "width"),
        (["--priors", "chunks:100+2"], "lengths"),
        (["--priors", "prefix:999"], "prefix"),
        (["--priors", "sinks:-1:4"], "count"),
        (["--priors", "alibi:0"], "n_heads"),
        (["--priors", "alibi:2:0.5/-1"], "slopes"),
        (["--priors", "ring"], "ring"),
        (["--depths", "0,4"], "depths"),
        (["--alpha", "1.5"], "alpha"),
        (["--custom", "0.5,0.5"], "custom"),
        (["--power-b", "-1"], "b must"),
        (["--dead-below", "2"], "dead_below"),
    ],
)
def test_bad_arguments_stop_before_any_work(argv, name, tmp_path, capsys):
    out = tmp_path / "never"
    with pytest.raises(SystemExit) as exit_info:
        script.main("counterfactuals", ["--smoke", "--no-progress", "--out", str(out), *argv])
    assert exit_info.value.code == 2
    assert name in capsys.readouterr().err
    assert not out.exists()


def test_subcommand_registers_and_runs(tmp_path):
    assert cli.main(["counterfactuals", "--smoke", "--no-progress", "--no-figures", "--priors", "causal,alibi:2",
                     "--depths", "2,3", "--out", str(tmp_path)]) == 0
    assert [(r["prior"], r["depth"]) for r in _rows(tmp_path)] == [("causal", "2"), ("causal", "3"), ("alibi:2", "2"), ("alibi:2", "3")]


def test_smoke_outputs_unchanged_by_the_move(smoke_run, golden):
    """results.csv, table.txt and verdict.txt equal those the pre-move code wrote for --smoke."""
    golden(smoke_run[0], "counterfactuals_smoke", ["results.csv", "table.txt", "verdict.txt"], rtol=1e-12)
