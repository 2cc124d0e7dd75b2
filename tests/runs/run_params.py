"""Which experiments the run-directory tests take in the default run, and which under -m extended.

Every experiment's run-directory tests read the smoke run the session shares (tests/conftest.py,
smoke_runs). The remedies experiment's smoke run costs about 15 CPU-seconds and its own tests are
under -m extended already, so its run-directory tests are there too (CI runs both).
"""

import pytest

from lostmid_jax.experiments import EXPERIMENTS

EXTENDED_SMOKE_RUNS = ("remedies",)


def experiment_params() -> list:
    """Every experiment's name as a pytest parameter; those of EXTENDED_SMOKE_RUNS marked extended."""
    return [pytest.param(name, marks=pytest.mark.extended) if name in EXTENDED_SMOKE_RUNS else name
            for name in EXPERIMENTS]
