"""One process of the 2-process check in test_parallel_multihost.py (argv: run directory).

Joins the job from JAX_* variables, then on the global mesh (2 processes x 2
CPU devices, gloo collectives): an exact profile and 3 data-parallel training steps with orbax
checkpoints; process 0 compares both with its own one-device results and
prints "OK" lines.
"""

import pathlib
import sys

import jax

from lostmid_jax.parallel import initialize_distributed, is_process0, make_mesh  # noqa: E402

assert initialize_distributed() and jax.process_count() == 2

import numpy as np  # noqa: E402
from flax import nnx  # noqa: E402

from lostmid_jax.analysis import influence_profile  # noqa: E402
from lostmid_jax.nn import Decoder, preset  # noqa: E402
from lostmid_jax.train import TrainConfig, init_state, tasks, toy_model, train, train_step_for  # noqa: E402

out = pathlib.Path(sys.argv[1])
mesh = make_mesh()
assert mesh.size == 4 and jax.local_device_count() == 2
model = Decoder(preset("toy", param_dtype="float32", width=16, heads=2, kv_heads=1), rngs=nnx.Rngs(0))
x = jax.random.normal(jax.random.key(1), (12, 16))
prof = influence_profile(model, x, mesh=mesh)
cfg = TrainConfig(task="retrieval", steps=3, model=toy_model(width=16, depth=1, heads=2, kv_heads=1, vocab=16),
                  kv_pairs=4, needle_bins=2, kv_batch=8, lm_length=24, doc_length=8, lm_batch=2, snapshot_steps=(),
                  eval_per_bin=4, ckpt_every=1, warmup=1)
many = train(cfg, out / "many", mesh=mesh)
if is_process0():
    ref = influence_profile(model, x)
    np.testing.assert_allclose(prof.sq_norms, ref.sq_norms, rtol=0, atol=1e-6 * ref.sq_norms.max())
    print("OK profile", flush=True)
    graphdef, params, opt_state = init_state(cfg)  # one-device reference without orbax (its saves are collective)
    step = train_step_for(graphdef, cfg)
    for t in range(cfg.steps):
        params, opt_state, _ = step(params, opt_state, tasks.train_batch(cfg, t))
    for a, b in zip(jax.tree.leaves(params), jax.tree.leaves(many.params)):
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-5, atol=1e-6)
    lines = (out / "many" / "metrics.jsonl").read_text().splitlines()
    assert len(lines) == 4 and '"sealed"' in lines[-1], lines  # 3 steps, then the seal of the finished run
    assert sorted(p.name for p in (out / "many" / "ckpt").iterdir())[-1] == "3", lines
    print("OK training", flush=True)
