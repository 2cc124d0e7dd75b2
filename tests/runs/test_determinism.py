"""Two runs of one config are byte-identical apart from config.json's timestamps and wall times (seconds,
phase_seconds) and the files that hold only wall times (timings.csv, units/timings.json): timing fields are
kept out of the result tables and unit files."""

import filecmp
import json

import numpy as np
import pytest

from lostmid_jax import cli
from lostmid_jax.experiments import EXPERIMENTS, load
from lostmid_jax.runs import UnitStore

TIMINGS = {"timings.csv", "timings.json"}
STAMPS = {"created_utc", "seconds", "phase_seconds", "peak_rss_gb"}


def _compare(a, b):
    """The relative paths whose bytes differ between run directories ``a`` and ``b`` (the same file names)."""
    names = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    return [n for n in names if not filecmp.cmp(a / n, b / n, shallow=False)]


def _config_without_stamps(path):
    record = json.loads(path.read_text())
    return {k: v for k, v in record.items() if k not in STAMPS}


@pytest.mark.extended  # two whole sweeps; the default run compares two step0 runs below
def test_two_sweeps_of_one_config_are_byte_identical(tmp_path):
    flags = ["sweep", "--depths", "1,2", "--alphas", "0.5", "--power-b", "none", "--lengths", "16", "--no-progress"]
    for name in ("a", "b"):
        assert cli.main([*flags, "--out", str(tmp_path / name)]) == 0
    assert [str(p) for p in _compare(tmp_path / "a", tmp_path / "b")] == ["config.json"]
    assert _config_without_stamps(tmp_path / "a" / "config.json") == _config_without_stamps(tmp_path / "b" / "config.json")


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_no_result_table_has_a_timing_column(name):
    """Wall times only in timings.csv (cheap guard over every experiment's documented columns)."""
    for file, columns in load(name).COLUMNS.items():
        if not file.startswith("timings"):
            assert not {"seconds", "elapsed", "wall_time"} & set(columns), f"{name}: {file}"


def test_unit_files_of_one_unit_are_identical_whatever_its_wall_time(tmp_path):
    for run, seconds in (("a", 1.25), ("b", 7.5)):
        UnitStore(tmp_path / run).save("toy__s0", {"norms": np.arange(4.0), "seconds": np.asarray(seconds)})
    assert filecmp.cmp(tmp_path / "a/units/toy__s0.npz", tmp_path / "b/units/toy__s0.npz", shallow=False)
    assert float(UnitStore(tmp_path / "b").load("toy__s0")["seconds"]) == 7.5


@pytest.mark.slow
def test_two_step0_runs_differ_only_in_timestamps_and_timings(smoke_runs, tmp_path):
    """Before: `seconds` in metrics.csv and in every units/*.npz broke a plain diff -r."""
    first = smoke_runs("step0")
    second = tmp_path / "run"
    assert cli.main(["step0", *smoke_runs.flags("step0"), "--no-progress", "--out", str(second)]) == 0
    differ = {p.name for p in _compare(first, second)}
    assert differ <= {"config.json"} | TIMINGS, differ
    assert _config_without_stamps(first / "config.json") == _config_without_stamps(second / "config.json")
