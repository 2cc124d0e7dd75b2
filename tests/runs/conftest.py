"""The cheapest finished run there is, shared by the run-directory tests that copy it and change the copy."""

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
