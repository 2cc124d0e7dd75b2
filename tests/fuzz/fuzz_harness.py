"""The fuzz harness: run one case, classify its outcome, count it per entry point (see conftest.py).

A hang is a case that spends more than its budget of CPU time (user + system, all threads of this
process, ``time.process_time``). A watchdog thread polls the CPU clock and raises ``Hang`` in the
case's thread; CPU time, unlike wall time, does not grow while other processes hold the cores, so a
loaded machine (or a first XLA compile waiting for a core) cannot fail a case. No signals are used.
"""

import collections
import ctypes
import os
import threading
import time

import pytest

COUNTS = collections.defaultdict(collections.Counter)  # entry point -> outcome -> cases
EXAMPLES = int(os.environ.get("LOSTMID_FUZZ_EXAMPLES", "12"))
NAMED_ERRORS = (ValueError, TypeError, FileNotFoundError)
POLL_S = 0.05  # how often the watchdog reads the CPU clock


class Hang(BaseException):
    """A case spent more CPU time than its budget (a BaseException, so no ``except Exception`` in the
    library under test can swallow it)."""


def _raise_in(thread_id: int, exc) -> None:
    """Raise ``exc`` (a class, or None to withdraw a pending one) in thread ``thread_id`` at its next
    Python instruction."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc else None)


class _CpuWatchdog:
    """Raises Hang in the calling thread once this process has used ``seconds`` of CPU time since start."""

    def __init__(self, seconds: float):
        self.limit = time.process_time() + seconds
        self.target = threading.get_ident()
        self.fired = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="fuzz-cpu-watchdog", daemon=True)

    def _watch(self) -> None:
        while not self._stop.wait(POLL_S):
            if time.process_time() > self.limit:
                with self._lock:
                    if not self._stop.is_set():
                        self.fired = True
                        _raise_in(self.target, Hang)
                return

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc_info):
        with self._lock:
            self._stop.set()
            if self.fired:  # withdraw a Hang not yet delivered (the case ended between the check and now)
                _raise_in(self.target, None)
        self._thread.join()
        return False


def run_case(entry: str, fn, names, *, seconds: float = 10.0):
    """Call fn(); return ("error", exc) for a named error or ("ok", value). Fails the test for any other
    outcome: an exception of another type (a traceback from inside), an error message that names none
    of ``names``, or a run past ``seconds`` of CPU time (a hang). Counts the outcome under ``entry``."""
    try:
        with _CpuWatchdog(seconds) as watchdog:
            value = fn()
        if watchdog.fired:
            raise Hang()
    except Hang:
        COUNTS[entry]["hang"] += 1
        pytest.fail(f"{entry}: no answer within {seconds} s of CPU time")
    except NAMED_ERRORS as err:
        message = str(err)
        if not any(name in message for name in names):
            COUNTS[entry]["unnamed error"] += 1
            pytest.fail(f"{entry}: {type(err).__name__} names none of {names}: {message}")
        COUNTS[entry]["named error"] += 1
        return "error", err
    except Exception as err:  # noqa: BLE001 - any other type is a traceback from library internals
        COUNTS[entry]["traceback"] += 1
        pytest.fail(f"{entry}: {type(err).__name__} from inside: {err}")
    COUNTS[entry]["result"] += 1
    return "ok", value
