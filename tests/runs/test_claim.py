"""Claiming a run directory: --out resolved once (~ expanded) and used for every write; the claim atomic, so two
processes racing on one --out end with one run and one refusal; dangling and looping --out symlinks refused in
one line; an unfinished run named as such, with the way to resume or restart it; SIGTERM handled like SIGINT."""

import json
import os
import pathlib
import signal
import subprocess
import time

import pytest

from lostmid_jax import cli, runs
from lostmid_jax.runs.claim import claim, resolve_out

from child import lostmid

# the cheapest run there is: the exact theory rows only (no jax), two depths, one a, L = 16
TINY = ["sweep", "--depths", "1,2", "--alphas", "0.5", "--power-b", "none", "--lengths", "16", "--no-progress",
        "--no-figures"]


def _refused(argv, capsys, message):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and message in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


def _race(tmp_path, attempts):
    outcomes = []
    for k in range(attempts):
        out = tmp_path / f"race{k}"
        procs = [lostmid([*TINY, "--out", str(out)]) for _ in range(2)]
        done = [(p.wait(timeout=120), *p.communicate()) for p in procs]
        codes = sorted(code for code, _, _ in done)
        refusal = next((err for code, _, err in done if code == 2), "")
        record = json.loads((out / "config.json").read_text())
        outcomes.append((codes, record["status"], "Traceback" in refusal, "out:" in refusal))
        assert codes == [0, 2], done
        assert record["status"] == "done" and "Traceback" not in refusal and "out:" in refusal, refusal
        # one run's files: the results belong to the config.json beside them
        files = ["columns.csv", "config.json", "profiles.csv", "results.csv", "table.txt", "verdict.txt"]
        assert sorted(p.name for p in out.iterdir()) == [".lostmid-files", *files]
        assert (out / ".lostmid-files").read_text().split() == files  # the run's record of what it wrote
    return outcomes


def test_two_processes_racing_on_one_out_leave_one_run_and_one_refusal(tmp_path):
    _race(tmp_path, 3)


@pytest.mark.slow
def test_two_processes_racing_on_one_out_20_attempts(tmp_path):
    outcomes = _race(tmp_path, 20)
    assert all(o[0] == [0, 2] for o in outcomes) and len(outcomes) == 20


def test_out_with_a_tilde_after_equals_is_expanded_once(tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    assert cli.main([*TINY, "--out=~/x"]) == 0
    assert (home / "x" / "results.csv").is_file() and not (tmp_path / "~").exists()
    capsys.readouterr()
    _refused([*TINY, "--out=~/x"], capsys, f"{home / 'x'} is not empty")  # the same command twice: refused


def test_dangling_and_looping_out_symlinks_are_one_line(tmp_path, capsys):
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    _refused([*TINY, "--out", str(tmp_path / "dangling")], capsys, "which does not exist")
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    _refused([*TINY, "--out", str(tmp_path / "a" / "run")], capsys, "symlink loop")
    assert not (tmp_path / "nowhere").exists()


def test_a_symlinked_out_is_resolved_and_the_run_written_at_its_target(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert resolve_out(tmp_path / "link" / "run") == (tmp_path / "real" / "run").resolve()


def test_a_claimed_directory_is_refused_to_a_second_claimant(tmp_path):
    first = claim(tmp_path / "run", {"a": 1}, experiment="depth_sweep", resumable=False)
    try:
        assert first.created and first.path == (tmp_path / "run").resolve()
        with pytest.raises(ValueError, match="being written by another run"):
            claim(tmp_path / "run", {"a": 1}, experiment="depth_sweep", resumable=True)
    finally:
        first.release()
    assert list((tmp_path / "run").iterdir()) == []  # no lock file left behind


def _interrupted(out: pathlib.Path, status="interrupted"):
    out.mkdir()
    (out / "config.json").write_text(json.dumps({"experiment": "depth_sweep", "config": {}, "status": status}))
    (out / "results.csv").write_text("half\r\n")
    (out / ".lostmid-files").write_text("config.json\nresults.csv\n")


def test_an_unfinished_run_is_named_with_the_flag_that_starts_it_again(tmp_path, capsys):
    out = tmp_path / "run"
    _interrupted(out)
    err = _refused([*TINY, "--out", str(out)], capsys, "unfinished depth_sweep run (status 'interrupted'")
    assert "--replace-unfinished" in err
    assert cli.main([*TINY, "--out", str(out), "--replace-unfinished"]) == 0
    assert json.loads((out / "config.json").read_text())["status"] == "done"
    capsys.readouterr()
    # a finished run is never replaced
    _refused([*TINY, "--out", str(out), "--replace-unfinished"], capsys, "not empty")


def test_an_unfinished_resumable_run_is_named_with_the_command_that_resumes_it(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "config.json").write_text(json.dumps({"experiment": "step0", "config": {"a": 1}, "status": "running"}))
    with pytest.raises(ValueError, match=f"unfinished step0 run .*lostmid rerun {out} --out {out}"):
        runs.claim_run_dir(out, {"a": 2}, experiment="step0", resumable=True)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_sigterm_is_handled_like_sigint(tmp_path, sig):
    """A run stopped by either signal while it works: config.json says "interrupted" (nothing finished: the
    directory it created is removed); the same command then names it as unfinished."""
    out = tmp_path / "run"
    # a sweep whose rows take a few seconds, stopped once its config.json says it is running
    proc = lostmid(["sweep", "--depths", "1-400", "--alphas", "0.5", "--power-b", "none", "--lengths", "20000",
                 "--no-progress", "--no-figures", "--out", str(out)], env={"PYTHONFAULTHANDLER": "1"})
    deadline = time.monotonic() + 60
    while not (out / "config.json").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:  # still running: SIGABRT makes faulthandler print where every thread is
        proc.send_signal(signal.SIGABRT)
        _, err = proc.communicate(timeout=60)
        pytest.fail(f"the run did not stop within 60 s of signal {sig!r}; its threads:\n{err[-6000:]}")
    # 128 + the signal's number: 130 for SIGINT, 143 for SIGTERM, as shells report them
    assert proc.returncode == 128 + sig and "interrupted" in err and "Traceback" not in err, err
    assert not out.exists()  # it had finished nothing: no trace, so the same command simply runs


def test_an_interrupted_run_with_finished_work_says_interrupted(tmp_path):
    import dataclasses
    import types

    from lostmid_jax.experiments import runner

    @dataclasses.dataclass(frozen=True)
    class Cfg:
        value: int = 1

    def run(cfg, run_dir, **kw):
        (run_dir / "unit0.npz").write_bytes(b"done")
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)

    exp = types.SimpleNamespace(NAME="fake", run=run)
    with pytest.raises(KeyboardInterrupt):
        runner.execute(exp, Cfg(), tmp_path / "new", echo=None)
    assert json.loads((tmp_path / "new" / "config.json").read_text())["status"] == "interrupted"
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL or callable(signal.getsignal(signal.SIGTERM))


def test_rerun_reads_only_the_runs_own_config(tmp_path, capsys):
    (tmp_path / "elsewhere.json").write_text(json.dumps({"experiment": "depth_sweep", "config": {}}))
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").symlink_to(tmp_path / "elsewhere.json")
    _refused(["rerun", str(run), "--out", str(tmp_path / "new")], capsys, "outside the run directory")
    (run / "config.json").unlink()
    (run / "config.json").write_text('{"experiment": "depth_sweep", "config": null}')
    _refused(["rerun", str(run), "--out", str(tmp_path / "new")], capsys, '"config" object')
    assert not (tmp_path / "new").exists()
