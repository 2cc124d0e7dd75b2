"""The harness's hang detection counts CPU time, not wall time."""

import time

import pytest

from fuzz_harness import COUNTS, run_case


def _busy(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_a_case_that_keeps_the_cpu_busy_past_its_budget_is_a_hang():
    with pytest.raises(pytest.fail.Exception, match="no answer within 0.2 s of CPU time"):
        run_case("harness self-test", lambda: _busy(5.0), (), seconds=0.2)
    assert COUNTS.pop("harness self-test") == {"hang": 1}


def test_waiting_without_cpu_is_not_a_hang():
    """A case that waits (as a case does while other processes hold the cores) spends no CPU time."""
    assert run_case("harness self-test", lambda: time.sleep(0.5) or 1, (), seconds=0.2) == ("ok", 1)
    assert COUNTS.pop("harness self-test") == {"result": 1}
