"""The study's units: step0's models and inputs, reused when a run resumes."""

import numpy as np

from lostmid_jax.experiments import script
from test_step0_study import run_dir  # noqa: F401  (fixtures and helpers of the experiment's test files)


ARGS = ["--smoke", "--no-progress"]


def test_resume_reuses_the_units(run_dir, tmp_path):
    import shutil

    run_dir = shutil.copytree(run_dir, tmp_path / "run")  # the shared run stays as it was
    before = {p.name: p.stat().st_mtime_ns for p in (run_dir / "units").iterdir()}
    assert script.main("step0_study", [*ARGS, "--out", str(run_dir), "--no-figures"]) == 0
    assert {p.name: p.stat().st_mtime_ns for p in (run_dir / "units").iterdir()} == before


def test_units_use_the_models_and_inputs_of_step0():
    import jax
    from flax import nnx

    from lostmid_jax.experiments.step0.config import Config, PresetPlan
    from lostmid_jax.experiments.step0.measure import unit_inputs
    from lostmid_jax.experiments.step0_study.measure import build

    cfg = Config(models={"presets": ("toy",), "param_dtype": "float32"}, influence={"input": "tokens"})
    plan = PresetPlan(preset="toy", length=8, method="exact", probes=1, seeds=1, variants=("native",))
    m1, x1, k1 = unit_inputs(cfg, plan, "native", 3)
    m2, x2, k2 = build("toy", {}, 8, 3, param_dtype="float32", kind="tokens")
    np.testing.assert_array_equal(np.asarray(x1), np.asarray(x2))
    np.testing.assert_array_equal(jax.random.key_data(k1), jax.random.key_data(k2))
    for a, b in zip(jax.tree.leaves(nnx.state(m1)), jax.tree.leaves(nnx.state(m2))):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
