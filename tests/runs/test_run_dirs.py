"""Run directories: a run never writes into someone else's results, a failed run leaves no empty shell, and
a finished one holds its column dictionary, figures drawn from its reloaded tables, and says what it wrote."""

import dataclasses
import json
import os
import types

import pytest

from lostmid_jax import cli, runs
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
    assert runs.claim_run_dir(tmp_path, config, experiment="step0", resumable=True) is False
    with pytest.raises(ValueError, match="different configuration"):
        runs.claim_run_dir(tmp_path, {"a": 2}, experiment="step0", resumable=True)
    with pytest.raises(ValueError, match="unfinished step0 run .*resume it with: lostmid rerun"):
        runs.claim_run_dir(tmp_path, config, experiment="depth_sweep", resumable=False)


@dataclasses.dataclass(frozen=True)
class _Cfg:
    value: int = 1


def _experiment(run, **fields):
    return types.SimpleNamespace(**{"NAME": "fake", "VERDICT_TITLE": "", "run": run, "records": lambda r: {},
                                    "summary": lambda r: "", "verdict": lambda r: [],
                                    "figures": lambda tables, cfg: {}, "describe": lambda r: "", **fields})


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
    assert json.loads((tmp_path / "new" / "config.json").read_text())["status"] == "failed"


def test_failure_in_a_directory_that_existed_keeps_the_directory(tmp_path):
    def run(cfg, run_dir, **kw):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        runner.execute(_experiment(run), _Cfg(), tmp_path, echo=None)
    assert tmp_path.is_dir()


def test_files_are_written_atomically(tmp_path):
    runs.write_csv(tmp_path / "a.csv", [{"x": 1}])
    runs.write_config(tmp_path, _Cfg())
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


ROWS = [{"j": 1, "x": 0.5, "continuum": False, "value": None}, {"j": 2, "x": 1.0, "continuum": True, "value": 2.5}]
COLUMNS = {"t.csv": {"j": ("position j", ""), "x": ("x = j/L", ""), "continuum": ("continuum limit", ""),
                     "value": ("a value", "nats")}}


def _tabled(seen, **fields):
    """A fake experiment writing t.csv (and a folder of its own); its figure records the tables it got."""
    from matplotlib.figure import Figure

    def run(cfg, run_dir, **kw):
        (run_dir / "units").mkdir()
        return "result"

    def figures(tables, cfg):
        seen.update(tables)
        fig = Figure(figsize=(2, 1.5))
        fig.subplots().plot(tables["t"]["j"], tables["t"]["x"])
        fig.suptitle(r"$x$ against $\rho_j$")
        return {"fig_t": fig}

    defaults = dict(records=lambda r: {"t.csv": ROWS}, figures=figures, COLUMNS=COLUMNS,
                    FILES={"units": "finished units (resume)"}, verdict=lambda r: ["fine"])
    return _experiment(run, **{**defaults, **fields})


def _png_dpi(path) -> float:
    data = path.read_bytes()
    at = data.index(b"pHYs") + 4
    return int.from_bytes(data[at:at + 4], "big") * 0.0254


def test_finished_run_has_dictionary_figures_from_reloaded_tables_and_a_files_block(tmp_path):
    seen, said = {}, []
    runner.execute(_tabled(seen), _Cfg(), tmp_path / "run", echo=said.append)
    run_dir = tmp_path / "run"
    assert runs.read_csv(run_dir / "columns.csv") == [
        {"file": "t.csv", "column": c, "meaning": m, "unit": u} for c, (m, u) in COLUMNS["t.csv"].items()]
    frame = seen["t"]  # the figure got the table read back from t.csv: typed, NA as NaN
    assert frame["j"].dtype == "int64" and frame["continuum"].dtype == bool and frame["value"].isna()[0]
    assert (run_dir / "fig_t.png").is_file() and round(_png_dpi(run_dir / "fig_t.png")) == 150
    config = json.loads((run_dir / "config.json").read_text())
    assert config["figures"] == ["fig_t.png"] and config["status"] == "done"
    block = said[-2].splitlines()
    assert said[-1].strip().startswith("Reload: lostmid_jax.runs.load_run(")
    assert block[0] == f"Files in {run_dir}:"
    described = {line.split()[0]: " ".join(line.split()[1:]) for line in block[1:]}
    assert set(described) == {".lostmid-files", "columns.csv", "config.json", "fig_t.png", "t.csv", "units/",
                              "verdict.txt"}
    assert described["fig_t.png"] == "figure: x against \u03c1_j"  # mathtext rendered as plain Unicode
    assert described["t.csv"].startswith("table, 2 rows x 4 columns")
    assert described["units/"] == "finished units (resume)"


def test_undocumented_columns_are_marked_and_warned_after_everything_is_written(tmp_path):
    columns = {"t": {k: v for k, v in COLUMNS["t.csv"].items() if k != "value"}}  # stem keys work too
    with pytest.warns(runs.UndocumentedColumnsWarning, match=r"t\.csv: value"):
        runner.execute(_tabled({}, COLUMNS=columns), _Cfg(), tmp_path / "run", echo=None)
    rows = runs.read_csv(tmp_path / "run" / "columns.csv")
    assert rows[-1] == {"file": "t.csv", "column": "value", "meaning": runs.UNDOCUMENTED, "unit": ""}
    assert (tmp_path / "run" / "fig_t.png").is_file()
    assert json.loads((tmp_path / "run" / "config.json").read_text())["status"] == "done"


def test_figures_must_be_a_dict_of_figures_and_a_bad_one_leaves_the_run_done(tmp_path, caplog):
    """figures() returning a list is named in one warning line; the tables stand and the run is done."""
    exp = _tabled({}, figures=lambda tables, cfg: ["fig.png"])
    with caplog.at_level("WARNING"):
        runner.execute(exp, _Cfg(), tmp_path / "run", echo=None)
    assert any("must return a dict of file stem" in r.getMessage() and "no figure drawn" in r.getMessage()
               for r in caplog.records)
    assert json.loads((tmp_path / "run" / "config.json").read_text())["status"] == "done"


def test_a_run_logs_its_phases_and_ends_with_its_files(tmp_path):
    """`lostmid sweep`: phase lines on stderr (experiments add theirs with logging.getLogger(__name__)),
    and the list of files written, each with what it is, closing stdout."""
    import subprocess
    import sys

    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "lostmid_jax.cli", *SWEEP, "--out", str(out)], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert done.returncode == 0, done.stderr
    assert f"depth_sweep: running into {out}" in done.stderr and "depth_sweep: writing" in done.stderr
    block = done.stdout[done.stdout.index(f"Files in {out}:"):].split("\n\n")[0].splitlines()[1:]
    assert sorted(line.split()[0] for line in block) == sorted(p.name for p in out.iterdir())
    assert all(len(line.split()) > 1 for line in block)
