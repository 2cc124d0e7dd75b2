"""train/step.py: the learning-rate schedule (warmup, then cosine to 0.1 lr) and AdamW's first step."""

import jax.numpy as jnp
import numpy as np
import pytest

from lostmid_jax.train.config import TrainConfig
from lostmid_jax.train.step import make_optimizer, schedule


def test_schedule_warms_up_from_lr_over_warmup_then_decays_to_a_tenth():
    cfg = TrainConfig(lr=1e-3, warmup=10, steps=110)
    lr = schedule(cfg)
    assert float(lr(0)) == pytest.approx(1e-4)  # lr / warmup: the first step already moves
    assert float(lr(10)) == pytest.approx(1e-3)
    assert float(lr(60)) == pytest.approx(0.1e-3 + 0.9e-3 * 0.5, rel=1e-6)  # halfway through the cosine
    assert float(lr(110)) == pytest.approx(1e-4, rel=1e-6)


def test_the_first_step_clips_the_global_norm_then_takes_adamws_step():
    """Adam's first step is lr(0) g / (|g| + eps) per coordinate (bias-corrected moments, eps = 1e-8), on the
    gradient clipped to global norm ``clip``; plus the decoupled decay lr(0) wd w. A tiny coordinate shows the
    clipping: scaled by clip / |g| it comes close to eps."""
    cfg = TrainConfig(lr=1e-2, warmup=4, steps=10, clip=1.0, weight_decay=0.5)
    tx = make_optimizer(cfg)
    params = {"w": jnp.array([1.0, -2.0])}
    grad = np.array([300.0, -0.001])
    step, _ = tx.update({"w": jnp.asarray(grad)}, tx.init(params), params)
    lr0, clipped = 1e-2 / 4, grad / np.linalg.norm(grad)
    expected = -lr0 * clipped / (np.abs(clipped) + 1e-8) - lr0 * 0.5 * np.array([1.0, -2.0])
    assert np.asarray(step["w"]) == pytest.approx(expected, rel=1e-5)
    unclipped = -lr0 * grad / (np.abs(grad) + 1e-8) - lr0 * 0.5 * np.array([1.0, -2.0])
    assert abs(float(step["w"][1]) - unclipped[1]) > 1e-6  # the clipping is visible


def test_the_cpu_heap_option_changes_where_temporaries_live_not_the_step(monkeypatch):
    """On the CPU backend the step is compiled with XLA's per-heap size limit (cpu_heaps.CPU_HEAP_BYTES); the
    parameters after two steps are bit-identical to those of the step compiled without it."""
    import jax

    from lostmid_jax.train import init_state, tasks, toy_model
    from lostmid_jax.train import step as step_module

    from lostmid_jax.cpu_heaps import CPU_HEAP_BYTES

    assert step_module.cpu_compiler_options() == {"xla_multiheap_size_constraint_per_heap": CPU_HEAP_BYTES}
    cfg = TrainConfig(task="lm", model=toy_model(depth=1, width=16, vocab=32), lm_length=16, lm_batch=4,
                      doc_length=16, steps=10, kv_pairs=2, needle_bins=2)
    graphdef, params, opt = init_state(cfg)
    batch = tasks.train_batch(cfg, 0)
    heaps = step_module.make_train_step(graphdef, make_optimizer(cfg))
    monkeypatch.setattr(step_module, "cpu_compiler_options", lambda: None)
    one_block = step_module.make_train_step(graphdef, make_optimizer(cfg))
    results = []
    for step in (heaps, one_block):
        p, o = params, opt
        for _ in range(2):
            p, o, _ = step(p, o, batch)
        results.append(jax.tree.leaves(p))
    for a, b in zip(*results):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
