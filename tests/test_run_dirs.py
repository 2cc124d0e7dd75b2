"""Run directories: a run never writes into someone else's results, and a failed run leaves no empty shell."""

import dataclasses
import json
import os
import types

import pytest

from lostmid_jax import cli, io
from lostmid_jax.experiments import runner

SWEEP = ["sweep", "--smoke", "--depths", "1,2", "--no-progress", "--no-figures"]


def _snapshot(directory):
    return {p.relative_to(directory): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in directory.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("finished") / "run"
    assert cli.main([*SWEEP, "--out", str(out)]) == 0
    return out


def _refused(argv, capsys, message):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and message in err, err
    assert "Traceback" not in err


def test_finished_run_is_never_overwritten(finished, capsys):
    before = _snapshot(finished)
    _refused([*SWEEP, "--out", str(finished)], capsys, "not empty")
    _refused(["counterfactuals", "--smoke", "--no-progress", "--out", str(finished)], capsys, "not empty")
    _refused(["rerun", str(finished), "--out", str(finished)], capsys, "differ")
    assert _snapshot(finished) == before


def test_any_non_empty_directory_is_refused(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    _refused([*SWEEP, "--out", str(tmp_path)], capsys, "not empty")
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_working_directory_and_empty_out_are_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _refused([*SWEEP, "--out", ""], capsys, "''")
    _refused([*SWEEP, "--out", "."], capsys, "working directory")
    assert list(tmp_path.iterdir()) == []


def test_out_under_a_regular_file_is_refused(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    _refused([*SWEEP, "--out", str(tmp_path / "file" / "run")], capsys, "is a file")


def test_empty_existing_directory_is_used(tmp_path):
    assert cli.main([*SWEEP, "--out", str(tmp_path)]) == 0
    assert json.loads((tmp_path / "config.json").read_text())["status"] == "done"


def test_resumable_run_needs_the_same_config(tmp_path):
    config = {"a": 1}
    (tmp_path / "config.json").write_text(json.dumps({"experiment": "step0", "config": config}))
    (tmp_path / "units").mkdir()
    assert io.claim_run_dir(tmp_path, config, experiment="step0", resumable=True) is False
    with pytest.raises(ValueError, match="different configuration"):
        io.claim_run_dir(tmp_path, {"a": 2}, experiment="step0", resumable=True)
    with pytest.raises(ValueError, match="not empty"):
        io.claim_run_dir(tmp_path, config, experiment="depth_sweep", resumable=False)


@dataclasses.dataclass(frozen=True)
class _Cfg:
    value: int = 1


def _experiment(run):
    return types.SimpleNamespace(NAME="fake", VERDICT_TITLE="", run=run, records=lambda r: {}, summary=lambda r: "",
                                 verdict=lambda r: [], figures=lambda r, d: [], describe=lambda r: "")


def test_failure_before_any_result_removes_the_directory_it_created(tmp_path):
    def run(cfg, run_dir, **kw):
        assert json.loads((run_dir / "config.json").read_text())["status"] == "running"
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        runner.execute(_experiment(run), _Cfg(), tmp_path / "new", echo=None)
    assert not (tmp_path / "new").exists()


def test_failure_after_finished_work_keeps_it(tmp_path):
    def run(cfg, run_dir, **kw):
        (run_dir / "unit0.npz").write_bytes(b"done")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        runner.execute(_experiment(run), _Cfg(), tmp_path / "new", echo=None)
    assert (tmp_path / "new" / "unit0.npz").read_bytes() == b"done"
    assert json.loads((tmp_path / "new" / "config.json").read_text())["status"] == "running"


def test_failure_in_a_directory_that_existed_keeps_the_directory(tmp_path):
    def run(cfg, run_dir, **kw):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        runner.execute(_experiment(run), _Cfg(), tmp_path, echo=None)
    assert tmp_path.is_dir()


def test_files_are_written_atomically(tmp_path):
    io.write_csv(tmp_path / "a.csv", [{"x": 1}])
    io.write_config(tmp_path, _Cfg())
    assert sorted(os.listdir(tmp_path)) == ["a.csv", "config.json"]  # no temporary names left behind
    assert (tmp_path / "a.csv").read_bytes() == b"x\r\n1\r\n"


@pytest.mark.parametrize("argv,message", [
    (["sweep", "--depths", "1-100000000"], "at most 100000"),
    (["sweep", "--depths", "1-50000"], "max_operations"),
    (["counterfactuals", "--length", "100000000", "--depths", "1-300"], "max_operations"),
])
def test_work_that_cannot_finish_is_refused_before_the_run(argv, message, tmp_path, capsys):
    _refused([*argv, "--no-progress", "--out", str(tmp_path / "never")], capsys, message)
    assert not (tmp_path / "never").exists()


def test_sweep_of_one_position_is_refused_before_its_directory_exists(tmp_path, capsys):
    """L = 1 has no middle: it used to fail inside matplotlib after the run directory was written."""
    _refused(["sweep", "--smoke", "--lengths", "1", "--no-progress", "--out", str(tmp_path / "never")], capsys,
             "lengths must be an int >= 2")
    assert not (tmp_path / "never").exists()
