"""The fuzz harness: run one case, classify its outcome, count it per entry point (see conftest.py)."""

import collections
import os
import signal

import pytest

COUNTS = collections.defaultdict(collections.Counter)  # entry point -> outcome -> cases
EXAMPLES = int(os.environ.get("LOSTMID_FUZZ_EXAMPLES", "12"))
NAMED_ERRORS = (ValueError, TypeError, FileNotFoundError)


class Hang(Exception):
    """A case ran past its time limit."""


def _alarm(signum, frame):
    raise Hang()


def run_case(entry: str, fn, names, *, seconds: float = 10.0):
    """Call fn(); return ("error", exc) for a named error or ("ok", value). Fails the test for any other
    outcome: an exception of another type (a traceback from inside), an error message that names none
    of ``names``, or a run past ``seconds`` (a hang). Counts the outcome under ``entry``."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        value = fn()
    except Hang:
        COUNTS[entry]["hang"] += 1
        pytest.fail(f"{entry}: no answer within {seconds} s")
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
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    COUNTS[entry]["result"] += 1
    return "ok", value
