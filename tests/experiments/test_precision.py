"""float64 is switched on for one experiment call (a context), never process-wide."""

import jax
import pytest

from lostmid_jax.experiments import step0, step0_study


@pytest.mark.parametrize("exp", [step0, step0_study], ids=lambda m: m.NAME)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_run_switches_float64_for_the_call_only(exp, dtype, tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(exp, "_run", lambda cfg, run_dir, **kwargs: seen.append(jax.config.jax_enable_x64) or "done")
    with jax.enable_x64(False):  # the test suite runs with float64 on (tests/conftest.py)
        assert exp.run(exp.Config(models={"param_dtype": dtype}), tmp_path) == "done"
        assert jax.config.jax_enable_x64 is False
    assert seen == [dtype == "float64"]
