"""SIGINT and SIGTERM are never lost (lostmid_jax.runs.stop): a signal that lands in a gc callback (where JAX's
_xla_gc_callback runs, and where a raised exception is printed as "Exception ignored" and dropped) is kept as
a flag, and the next write or unit boundary stops the run, which records "interrupted"."""

import contextlib
import dataclasses
import gc
import json
import os
import signal
import sys
import types

import pytest

from lostmid_jax.runs import UnitStore, stop, write_atomic


@contextlib.contextmanager
def _signal_inside_gc_callback(sig):
    """Every garbage collection in the block sends ``sig`` to this process from inside a gc callback (the
    handler then runs there, as it does when a signal lands while JAX's callback runs)."""
    def callback(phase, info):
        if phase == "start":
            os.kill(os.getpid(), sig)
            for _ in range(1000):  # bytecodes: the handler runs here, inside the callback
                pass

    gc.callbacks.insert(0, callback)
    try:
        yield
    finally:
        gc.callbacks.remove(callback)


@contextlib.contextmanager
def _unraisable():
    seen = []
    previous = sys.unraisablehook
    sys.unraisablehook = seen.append
    try:
        yield seen
    finally:
        sys.unraisablehook = previous


def test_a_raising_handler_loses_a_signal_that_lands_in_a_gc_callback():
    """The failure this module prevents, shown with the handler the runner used before: the exception is
    dropped, the code goes on as if nothing happened."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt(signum)

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        with _unraisable() as seen, _signal_inside_gc_callback(signal.SIGTERM):
            gc.collect()
        finished = True  # reached: the signal was lost
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert finished and any(isinstance(u.exc_value, KeyboardInterrupt) for u in seen)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_in_a_gc_callback_is_kept_and_stops_the_next_write(tmp_path, sig):
    with pytest.raises(stop.Interrupted), stop.watching():  # and leaving the block raises it too
        with _unraisable() as seen, _signal_inside_gc_callback(sig):
            gc.collect()
        assert not seen and stop.received() == sig and stop.exit_code() == 128 + sig
        with pytest.raises(stop.Interrupted) as exc:
            write_atomic(tmp_path / "table.csv", "a\r\n")
        assert exc.value.signum == sig and isinstance(exc.value, KeyboardInterrupt)
        assert list(tmp_path.iterdir()) == []  # nothing written, no temporary left
        with stop.shielded():  # what records that the run stopped is still written
            write_atomic(tmp_path / "config.json", "{}")
        assert (tmp_path / "config.json").read_text() == "{}"
        with pytest.raises(stop.Interrupted):
            stop.check()


def test_a_signal_stops_the_next_check_and_the_block_end_raises_one_never_checked():
    with pytest.raises(stop.Interrupted):
        with stop.watching():
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(10**5):  # the handler runs here; it only records the signal
                pass
            assert stop.received() == signal.SIGTERM
            list(stop.checked(range(3)))  # a loop over units stops before its first one
            pytest.fail("the loop did not stop")
    with pytest.raises(stop.Interrupted):  # never checked inside: raised on leaving
        with stop.watching():
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(10**5):
                pass
    stop.check()  # outside watching() nothing raises (a later command in the same process is not stopped)


def test_watching_restores_the_handlers_and_keeps_an_ignored_signal_ignored():
    previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        before_int = signal.getsignal(signal.SIGINT)
        with stop.watching():
            assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGINT) is not before_int
        assert signal.getsignal(signal.SIGINT) is before_int
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_unit_measured_while_a_signal_came_is_saved_before_the_run_stops(tmp_path):
    import numpy as np

    store = UnitStore(tmp_path)
    with pytest.raises(stop.Interrupted), stop.watching():
        with _signal_inside_gc_callback(signal.SIGTERM):
            gc.collect()
        with pytest.raises(stop.Interrupted):
            store.save("unit0", {"x": np.arange(3), "seconds": 1.5})
        with stop.shielded():
            assert store.done("unit0") and list(store.load("unit0")["x"]) == [0, 1, 2]


@dataclasses.dataclass(frozen=True)
class _Cfg:
    value: int = 1


def test_a_run_signalled_inside_a_gc_callback_ends_interrupted_not_done(tmp_path):
    """The probe's case: the signal lands while a gc callback runs, the experiment's own code returns
    normally; before, the run went on to write its tables and status "done" (and the command exited 0)."""
    from lostmid_jax.experiments import runner

    def run(cfg, run_dir, **kw):
        write_atomic(run_dir / "unit0.txt", "finished\n")
        with _signal_inside_gc_callback(signal.SIGTERM):
            gc.collect()
        return "result"

    exp = types.SimpleNamespace(NAME="fake", run=run, records=lambda r: {"t": [{"a": 1}]}, summary=lambda r: "",
                                verdict=lambda r: [], figures=lambda t, c: {})
    with pytest.raises(stop.Interrupted) as exc:
        runner.execute(exp, _Cfg(), tmp_path / "run", echo=None)
    assert exc.value.signum == signal.SIGTERM
    record = json.loads((tmp_path / "run" / "config.json").read_text())
    assert record["status"] == "interrupted"
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == [".lostmid-files", "config.json", "unit0.txt"]


@pytest.mark.parametrize("guarded", [True, False])
def test_a_signal_during_interpreter_shutdown_is_kept_by_guard_exit(guarded):
    """A SIGINT sent while exit callbacks run (as JAX's clean_up does at exit): with guard_exit the process
    exits 130 and prints nothing; Python's own handler drops it ("Exception ignored", exit 0)."""
    import subprocess
    import sys

    code = ("import atexit, os, signal\n"
            "signal.signal(signal.SIGINT, signal.default_int_handler)  # a background pytest's children ignore it\n"
            "from lostmid_jax.runs import stop\n"
            f"{'stop.guard_exit()' if guarded else 'pass'}\n"
            "atexit.register(lambda: os.kill(os.getpid(), signal.SIGINT))  # runs before guard_exit's callback\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    if guarded:
        assert (proc.returncode, proc.stderr) == (130, "")
    else:
        assert proc.returncode == 0 and "Exception ignored" in proc.stderr
