"""The cheapest finished run there is, shared by the run-directory tests that copy it and change the copy; and
SIGINT as an interactive shell gives it, whatever launched pytest."""

import signal

import pytest

from lostmid_jax import cli


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory):
    """A finished sweep with its figures (copy it before changing it)."""
    out = tmp_path_factory.mktemp("tiny") / "run"
    # the exact theory rows only (no jax), two depths, one a, L = 16
    assert cli.main(["sweep", "--depths", "1,2", "--alphas", "0.5", "--power-b", "none", "--lengths", "16",
                     "--no-progress", "--out", str(out)]) == 0
    return out


@pytest.fixture(autouse=True)
def interruptible():
    """SIGINT handled as Python's default (KeyboardInterrupt) during each test, restored after: pytest started in the
    background by a non-interactive shell (``cmd &``) inherits SIGINT ignored, and the run machinery rightly keeps
    an ignored signal ignored (runs.stop.watching), which would fail the tests that send one (children started here
    inherit the default disposition, not the ignore)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
