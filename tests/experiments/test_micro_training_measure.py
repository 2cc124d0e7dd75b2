"""Micro-training's runs: a rerun of the same run directory resumes without training again."""

import shutil

import pytest

from lostmid_jax.experiments import script
from test_micro_training import tiny_run  # noqa: F401  (fixtures and helpers of the experiment's test files)


SMOKE = ["--smoke", "--no-progress"]  # one layer of width 16, 5 steps, seeds 0 and 1, task mixed, middle_weighted_loss


@pytest.mark.slow
def test_rerun_resumes_without_retraining(tiny_run, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(tiny_run, out)
    before = (out / "snapshots.csv").read_text()
    for name in ("snapshots.csv", "profiles.csv"):
        (out / name).unlink()
    assert script.main("micro_training", SMOKE + ["--out", str(out), "--no-figures"]) == 0  # restored, not retrained
    assert (out / "snapshots.csv").read_text() == before
