"""Nothing a user owns is overwritten or deleted (issue 36): `report --out` and `plot --out` replace only their own
earlier output and never write inside another run; --replace-unfinished removes only the files the run wrote
(its record, .lostmid-files) and says in one line what it left; the temporaries of a killed report or plot
are removed by the next one on that run."""

import json
import os
import shutil

import pytest

from lostmid_jax import cli
from lostmid_jax.runs import ledger, outputs
from lostmid_jax.runs.claim import try_lock

# the cheapest run there is (as tiny_run, tests/runs/conftest.py): the exact theory rows only, no figures
TINY = ["sweep", "--depths", "1,2", "--alphas", "0.5", "--power-b", "none", "--lengths", "16", "--no-progress",
        "--no-figures"]


@pytest.fixture
def run(tiny_run, tmp_path):
    shutil.copytree(tiny_run, tmp_path / "run", symlinks=True)
    return tmp_path / "run"


@pytest.fixture
def other(tiny_run, tmp_path):
    shutil.copytree(tiny_run, tmp_path / "other", symlinks=True)
    return tmp_path / "other"


def _snapshot(directory):
    return {p.relative_to(directory): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def _refused(argv, capsys, *messages):
    with pytest.raises(SystemExit) as exc:
        cli.main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and all(m in err for m in messages), err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


def test_report_out_never_replaces_a_runs_file_nor_writes_into_another_run(run, other, tmp_path, capsys):
    """Before: `report RUN --out RUN/config.json` replaced the run's config.json with HTML (exit 0), and
    `--out OTHER/results.csv` another run's table."""
    before, theirs = _snapshot(run), _snapshot(other)
    err = _refused(["report", run, "--out", run / "config.json"], capsys, "config.json exists and is not a page")
    assert "--out" in err
    _refused(["report", run, "--out", other / "results.csv"], capsys, "inside another run directory")
    _refused(["report", run, "--out", other / "new.html"], capsys, "inside another run directory")
    _refused(["report", run, "--out", other / "sub" / "page.html"], capsys, "inside another run directory")
    (tmp_path / "link.html").symlink_to(run / "results.csv")  # through a symlink: its target is checked
    _refused(["report", run, "--out", tmp_path / "link.html"], capsys, "results.csv exists and is not a page")
    (tmp_path / "notes.html").write_text("<p>mine</p>")
    _refused(["report", run, "--out", tmp_path / "notes.html"], capsys, "notes.html exists and is not a page")
    assert _snapshot(run) == before and _snapshot(other) == theirs
    assert (tmp_path / "notes.html").read_text() == "<p>mine</p>"
    assert not (other / "sub").exists()


def test_report_replaces_its_own_page_and_refuses_someone_elses_report_html(run, tmp_path, capsys):
    for _ in range(2):  # its own earlier page, in the run and outside it
        assert cli.main(["report", str(run)]) == 0
        assert cli.main(["report", str(run), "--out", str(tmp_path / "page.html")]) == 0
    assert outputs.REPORT_MARK in (run / "report.html").read_text()
    (run / "report.html").write_text("my own report")
    err = _refused(["report", run], capsys, "report.html exists and is not a page lostmid report wrote",
                   "move it away, or write elsewhere with --out FILE")
    assert not err.split("error: ")[1].startswith("out:")  # no --out given: the message does not say it was
    assert (run / "report.html").read_text() == "my own report"


@pytest.mark.extended  # redraws a run's figures three times (about 7 CPU-s)
def test_plot_out_never_replaces_a_file_it_did_not_write(run, other, tmp_path, capsys):
    theirs = _snapshot(other)
    _refused(["plot", run, "--out", other], capsys, "holds another run")
    _refused(["plot", run, "--out", other / "figures"], capsys, "lies inside another run")
    assert _snapshot(other) == theirs and not (other / "figures").exists()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "fig1_u_curves.png").write_bytes(b"my picture")
    _refused(["plot", run, "--out", mine], capsys, "fig1_u_curves.png exists and is not a figure lostmid wrote")
    assert [p.name for p in mine.iterdir()] == ["fig1_u_curves.png"]
    assert (mine / "fig1_u_curves.png").read_bytes() == b"my picture"
    fresh = tmp_path / "fresh"
    for fmt in ("png,svg", "svg"):  # its own figures, redrawn
        assert cli.main(["plot", str(run), "--format", fmt, "--out", str(fresh)]) == 0
    assert all(outputs.is_figure(p) for p in fresh.iterdir())
    assert cli.main(["plot", str(run), "--format", "png"]) == 0  # into the run: the figures it lists
    (run / "fig1_u_curves.svg").write_bytes(b"<svg>mine</svg>")  # a file of the user's in the run
    err = _refused(["plot", run, "--format", "svg"], capsys, "fig1_u_curves.svg exists and is not a figure lostmid",
                   "write elsewhere with --out DIR")
    assert "error: out:" not in err and (run / "fig1_u_curves.svg").read_bytes() == b"<svg>mine</svg>"


def test_replace_unfinished_removes_only_what_the_run_wrote(run, tmp_path, capsys, caplog):
    """Before: --replace-unfinished deleted everything in the directory, my_notes.txt too (also when --out
    was a symlink to the run)."""
    record = json.loads((run / "config.json").read_text())
    for out in (run, tmp_path / "link"):
        (run / "config.json").write_text(json.dumps({**record, "status": "interrupted"}))
        (run / "my_notes.txt").write_text("mine")
        (run / ".results.csv.abc123.tmp").write_text("half a table")  # a killed write of the run
        if out.name == "link":
            out.symlink_to(run, target_is_directory=True)
        with caplog.at_level("WARNING", logger="lostmid_jax.experiments"):
            assert cli.main([*TINY, "--out", str(out), "--replace-unfinished"]) == 0
        said = [r.getMessage() for r in caplog.records if "--replace-unfinished" in r.getMessage()]
        assert len(said) == 1 and said[0].endswith("left 1 it did not write in " f"{run.resolve()}: my_notes.txt")
        caplog.clear()
        assert (run / "my_notes.txt").read_text() == "mine"
        assert not (run / ".results.csv.abc123.tmp").exists()
        assert json.loads((run / "config.json").read_text())["status"] == "done"
        assert sorted(ledger.read_ledger(run)) == sorted(p.name for p in run.iterdir()
                                                         if p.name not in ("my_notes.txt", ledger.LEDGER_FILE))


def test_replace_unfinished_refuses_a_run_without_a_record(run, capsys):
    (run / ledger.LEDGER_FILE).unlink()
    record = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**record, "status": "interrupted"}))
    before = _snapshot(run)
    _refused([*TINY, "--out", run, "--replace-unfinished"], capsys, "has no .lostmid-files")
    assert _snapshot(run) == before


def test_temporaries_of_a_killed_report_or_plot_are_removed_by_the_next_one(run, tmp_path):
    """Before: a killed `lostmid report` left .report.html.<random>.tmp behind for good."""
    left = [".report.html.k1ll3d.tmp", ".fig1_u_curves.png.k1ll3d.tmp"]
    for name in left:
        (run / name).write_text("half")
    fd = try_lock(run.resolve())  # while a run (or another report) holds the directory, nothing is removed
    try:
        assert cli.main(["report", str(run)]) == 0
        assert all((run / name).exists() for name in left)
    finally:
        os.close(fd)
    assert cli.main(["report", str(run)]) == 0
    assert not any((run / name).exists() for name in left)
    (run / left[1]).write_text("half")
    assert cli.main(["plot", str(run), "--out", str(tmp_path / "figs")]) == 0
    assert not (run / left[1]).exists() and not list(tmp_path.glob("figs/.*"))
