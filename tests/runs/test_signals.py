"""SIGINT and SIGTERM sent at many moments of a diagnose and a step0 run (a child process): every outcome is a
non-zero exit (130 / 143) with one line and no "Exception ignored", a run directory that says "interrupted"
(or "done" with every table, when the signal came after the run had finished), the tables it holds identical
to an uninterrupted run's, and no temporary file left. The default run sends SIGTERM at one moment of
the diagnose run; -m extended sends the other signal to step0, each at two more moments and at 4 moments spread over each run (-m slow: 12),
under CPU load, and resumes an interrupted step0 run."""

import contextlib
import json
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from lostmid_jax.experiments import EXPERIMENTS
from lostmid_jax.runs import load_unit

from child import lostmid

VARYING = {"timings.csv"}  # wall times: differ from run to run
SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _run(smoke_runs, name, out):
    """The child process of the shared run's command (x64 on, as in this process: the same numbers)."""
    return lostmid([EXPERIMENTS[name][0], *smoke_runs.flags(name), "--no-progress", "--out", out],
                   env={"JAX_ENABLE_X64": "1"})


def _moment_reached(proc, out, moment, started) -> bool:
    """Wait until ``moment``: ("after", seconds since the start) or ("file", a glob in the run directory)."""
    kind, value = moment
    deadline = started + 600
    while proc.poll() is None and time.monotonic() < deadline:
        if (kind == "after" and time.monotonic() - started >= value) or (kind == "file" and any(out.glob(value))):
            return True
        time.sleep(0.01)
    return False


def _signalled(smoke_runs, name, out, sig, moment):
    """(return code, stderr, whether the signal was sent before the run ended) of one signalled run."""
    started = time.monotonic()
    proc = _run(smoke_runs, name, out)
    sent = _moment_reached(proc, out, moment, started) and proc.poll() is None
    if sent:
        proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        pytest.fail(f"{name} did not stop within 600 s of {sig!r} at {moment}:\n{err[-3000:]}")
    return proc.returncode, err, sent


def _check(name, sig, moment, code, err, out, reference) -> str:
    """Assert one outcome; its kind: "nothing kept", "interrupted" or "done"."""
    where = f"{name}, {signal.Signals(sig).name} at {moment}"
    assert "Exception ignored" not in err, f"{where}: a signal was dropped:\n{err[-3000:]}"
    if not (out / "config.json").exists():  # stopped before it finished anything: no trace (or before main)
        assert code in (128 + sig, -sig) and not out.exists(), f"{where}: exit {code}\n{err[-3000:]}"
        return "nothing kept"
    assert code == 128 + sig, f"{where}: exit {code}\n{err[-3000:]}"
    assert err.rstrip().splitlines()[-1] == f"lostmid {EXPERIMENTS[name][0]}: interrupted by {sig.name}", where
    assert "Traceback" not in err, f"{where}:\n{err[-3000:]}"
    status = json.loads((out / "config.json").read_text())["status"]
    assert status in ("interrupted", "done"), f"{where}: status {status!r}"
    assert not [p for p in out.rglob("*") if p.name.endswith(".tmp")], f"{where}: temporaries left"
    tables = {p.name for p in out.glob("*.csv")}
    for table in tables - VARYING:
        assert (out / table).read_bytes() == (reference / table).read_bytes(), f"{where}: {table} differs"
    for unit in sorted((out / "units").glob("*.npz")):
        mine, theirs = load_unit(unit), load_unit(reference / "units" / unit.name)
        assert mine.keys() == theirs.keys() and all(np.array_equal(mine[k], theirs[k]) for k in mine), unit
    if status == "done":  # the signal came after the run had finished: all of it is there
        assert tables == {p.name for p in reference.glob("*.csv")}, where
    return status


# the default run's moment (about 8 CPU-seconds): SIGTERM while diagnose writes its tables; -m extended adds
# SIGINT once step0 has saved a unit and the other signal at the other moment
MOMENTS = [("diagnose", signal.SIGTERM, ("file", "*.csv")),
           pytest.param("step0", signal.SIGINT, ("file", "units/*.npz"), marks=pytest.mark.extended),
           pytest.param("diagnose", signal.SIGINT, ("file", "checkpoint"), marks=pytest.mark.extended),
           pytest.param("step0", signal.SIGTERM, ("file", "*.png"), marks=pytest.mark.extended)]


@pytest.mark.parametrize("name,sig,moment", MOMENTS)
def test_a_signal_at_a_moment_of_a_run(smoke_runs, tmp_path, name, sig, moment):
    out = tmp_path / "run"
    code, err, sent = _signalled(smoke_runs, name, out, sig, moment)
    assert sent, f"{name} finished before {moment}"
    assert _check(name, sig, moment, code, err, out, smoke_runs(name)) == "interrupted"


@contextlib.contextmanager
def _cpu_load(processes: int = 1):
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)]
    try:
        yield
    finally:
        for proc in burners:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("name,count", [pytest.param("diagnose", 4, marks=pytest.mark.extended),
                                        pytest.param("step0", 4, marks=pytest.mark.extended),
                                        pytest.param("diagnose", 12, marks=pytest.mark.slow),
                                        pytest.param("step0", 12, marks=pytest.mark.slow)])
def test_each_signal_at_many_moments_of_a_run_under_load(smoke_runs, tmp_path, name, count):
    """``count`` moments per signal, spread evenly over the run (-m extended: 4, about 8 child runs per
    experiment; -m slow: 12); at least a third of the runs end interrupted (later moments may find it done)."""
    reference = smoke_runs(name)
    outcomes = []
    with _cpu_load():
        started = time.monotonic()
        probe = _run(smoke_runs, name, tmp_path / "unsignalled")
        assert probe.wait(timeout=900) == 0, probe.communicate()[1][-3000:]
        duration = time.monotonic() - started
        for sig in SIGNALS:
            for k in range(count):
                moment = ("after", round((k + 0.5) / count * duration, 2))
                out = tmp_path / f"run_{sig.name}_{k}"
                code, err, sent = _signalled(smoke_runs, name, out, sig, moment)
                outcomes.append(_check(name, sig, moment, code, err, out, reference) if sent else "missed")
    assert outcomes.count("interrupted") >= len(outcomes) // 3, outcomes
    # an interrupted step0 run resumes where it stopped and ends with the uninterrupted run's tables
    if name == "step0":
        out = next(tmp_path / f"run_SIGTERM_{k}" for k in range(count - 1, -1, -1)
                   if outcomes[count + k] == "interrupted")
        resumed = _run(smoke_runs, name, out)
        assert resumed.wait(timeout=900) == 0, resumed.communicate()[1][-3000:]
        for table in {p.name for p in reference.glob("*.csv")} - VARYING:
            assert (out / table).read_bytes() == (reference / table).read_bytes(), table
