"""`lostmid report` and `lostmid rerun` take RUN_DIR however it is spelled (relative, ".", "..", through a
symlink) and still never write inside a run they do not own (issue 35, item 6; `lostmid plot`:
tests/runs/test_plot.py); their messages name only the flags the user gave."""

import json
import shutil

import pytest

from lostmid_jax import cli


@pytest.fixture
def run(tiny_run, tmp_path):
    shutil.copytree(tiny_run, tmp_path / "run", symlinks=True)
    (tmp_path / "run" / "notes").mkdir()  # a folder of the user's inside the run, to stand in and say ".."
    (tmp_path / "link").symlink_to(tmp_path / "run", target_is_directory=True)
    return tmp_path / "run"


def _snapshot(directory):
    return {p.relative_to(directory): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def test_report_takes_the_run_however_it_is_spelled(run, tmp_path, monkeypatch, capsys):
    for where, name in ((tmp_path, "run"), (run, "."), (run / "notes", ".."), (tmp_path, "link"),
                        (run / "notes", "../../link")):
        (run / "report.html").unlink(missing_ok=True)
        monkeypatch.chdir(where)
        assert cli.main(["report", name]) == 0
        written = capsys.readouterr().out.strip()
        assert (run / "report.html").is_file() and (where / written).resolve() == (run / "report.html").resolve()
        page = (run / "report.html").read_text()
        assert "run directory run" in page, name  # the run's own name, not "" for "." or ".."
        assert "RUN_DIR5" not in page and "0.5" in page  # "." is no path prefix to hide in the config values


def test_rerun_takes_the_run_however_it_is_spelled_and_never_writes_inside_it(run, tmp_path, monkeypatch, capsys):
    before = _snapshot(run)
    for k, (where, name) in enumerate(((run, "."), (run / "notes", ".."), (tmp_path, "link"), (tmp_path, "run"))):
        monkeypatch.chdir(where)
        new = tmp_path / f"new{k}"
        assert cli.main(["rerun", name, "--out", str(new), "--no-progress", "--no-figures"]) == 0
        assert json.loads((new / "config.json").read_text())["config"] == json.loads(
            (run / "config.json").read_text())["config"]
    # no --out, from inside the run: the new run goes beside it (the default <root> would lie inside it)
    monkeypatch.chdir(run / "notes")
    assert cli.main(["rerun", "..", "--no-progress", "--no-figures"]) == 0
    beside = [p for p in tmp_path.iterdir() if p.name not in ("run", "link") and not p.name.startswith("new")]
    assert len(beside) == 1 and (beside[0] / "config.json").is_file()
    assert _snapshot(run) == before  # nothing written inside the run rerun
    capsys.readouterr()
    monkeypatch.chdir(run)
    with pytest.raises(SystemExit) as exc:  # the same directory again: refused, naming the flag given
        cli.main(["rerun", ".", "--out", "."])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "out: a rerun writes a new run directory" in err and "Traceback" not in err
    assert _snapshot(run) == before
