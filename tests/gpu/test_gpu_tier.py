"""On a GPU: the step0 smoke, the Jacobian engine and a training step run on the device and agree with the CPU
(float32 at the highest matmul precision, tests/gpu/conftest.py). Skipped without a GPU."""

import os
import pathlib
import subprocess
import sys

import jax
import numpy as np
import pytest
from flax import nnx

pytestmark = pytest.mark.gpu

ROOT = pathlib.Path(__file__).resolve().parents[2]
RTOL = 1e-4  # float32 on two devices: the same program, fused and ordered differently


def _on(device, tree):
    return jax.device_put(tree, device)


def test_step0_unit_runs_on_the_gpu_and_equals_the_cpu(gpu, cpu):
    """One smoke unit (toy, L = 32, 4 probes, the pathway split): the model and input built on each device, the
    profiles, a_l and the heat-map probabilities agree."""
    from lostmid_jax.experiments.step0 import SMOKE, Config
    from lostmid_jax.experiments.step0.measure import run_unit, unit_inputs

    cfg = Config(**{k: v for k, v in SMOKE.items()})
    plan = cfg.plans()[0]
    out = []
    for device in (cpu, gpu):
        with jax.default_device(device):
            _, x, _ = unit_inputs(cfg, plan, "native", 0)
            assert x.devices() == {device}
            out.append(run_unit(cfg, plan, "native", 0))
    for key in ("norms_total", "norms_value", "norms_score", "alphas", "heat_probs"):
        np.testing.assert_allclose(out[1][key], out[0][key], rtol=RTOL, atol=1e-7, err_msg=key)


def test_step0_smoke_command_runs_on_the_gpu(gpu, tmp_path):
    """`lostmid step0 --smoke` in its own process with the GPU visible: it finishes and writes its tables."""
    env = {k: v for k, v in os.environ.items() if k != "JAX_PLATFORMS"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env["JAX_DEFAULT_MATMUL_PRECISION"] = "highest"
    run = subprocess.run([sys.executable, "-m", "lostmid_jax.cli", "step0", "--smoke", "--no-progress", "--no-figures",
                          "--profile", "--out", str(tmp_path / "run")], capture_output=True, text=True, env=env,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert (tmp_path / "run" / "profiles.csv").exists() and "host share" in run.stdout


def test_jacobian_engine_on_the_gpu_equals_the_cpu(gpu, cpu):
    """The exact profile (D = 32 cotangents, chunks of 8) of one toy decoder, its weights copied to each device."""
    from lostmid_jax.analysis import influence_profile
    from lostmid_jax.nn import Decoder, preset

    model = Decoder(preset("toy", param_dtype="float32"), rngs=nnx.Rngs(0))
    graphdef, state = nnx.split(model)
    x = np.asarray(jax.random.normal(jax.random.key(1), (64, model.cfg.width)), np.float32)
    norms = []
    for device in (cpu, gpu):
        moved = nnx.merge(graphdef, _on(device, state))
        prof = influence_profile(moved, _on(device, x), method="exact", chunk=8)
        norms.append(np.asarray(prof.norms))
    np.testing.assert_allclose(norms[1], norms[0], rtol=RTOL)


def test_training_step_on_the_gpu_equals_the_cpu(gpu, cpu):
    """One AdamW step of a tiny LM (blocked attention on both devices): loss, gradient norm and the new
    parameters agree."""
    from lostmid_jax.nn import Execution
    from lostmid_jax.train import TrainConfig, toy_model
    from lostmid_jax.train.loop import init_state
    from lostmid_jax.train.step import train_step_for

    cfg = TrainConfig(task="lm", steps=10, warmup=2, kv_pairs=4, needle_bins=2, kv_batch=4, lm_length=24,
                      doc_length=8, lm_batch=2, snapshot_steps=(),
                      model=toy_model(width=16, depth=1, heads=2, kv_heads=1, vocab=16))
    graphdef, params, opt_state = init_state(cfg)
    tokens = np.asarray(jax.random.randint(jax.random.key(2), (2, 24), 0, 16))
    batch = {"lm_tokens": tokens, "lm_weights": np.ones((2, 23), np.float32)}
    step = train_step_for(graphdef, cfg, execution=Execution())
    out = []
    for device in (cpu, gpu):
        new, _, metrics = step(_on(device, params), _on(device, opt_state), _on(device, batch))
        assert metrics["loss"].devices() == {device}
        out.append((jax.tree.map(np.asarray, new), {k: float(v) for k, v in metrics.items()}))
    (gpu_params, gpu_metrics), (cpu_params, cpu_metrics) = out[1], out[0]
    for name in ("loss", "grad_norm"):
        assert gpu_metrics[name] == pytest.approx(cpu_metrics[name], rel=RTOL), name
    for a, b in zip(jax.tree.leaves(gpu_params), jax.tree.leaves(cpu_params)):
        np.testing.assert_allclose(a, b, rtol=RTOL, atol=1e-6)
