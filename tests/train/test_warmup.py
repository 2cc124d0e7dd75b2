"""Warmup starts at lr / warmup, not 0: the first optimizer step already moves the parameters."""

import jax
import numpy as np
import pytest

from lostmid_jax.train import init_state, schedule


def test_schedule_warms_up_from_lr_over_warmup():
    from lostmid_jax.train import TrainConfig

    lr = schedule(TrainConfig(lr=1e-2, warmup=10, steps=100))
    assert [float(lr(t)) for t in (0, 10)] == pytest.approx([1e-3, 1e-2])
    assert float(lr(100)) == pytest.approx(1e-3)  # cosine ends at 0.1 lr
    assert float(schedule(TrainConfig(lr=1e-2, warmup=0))(0)) == pytest.approx(1e-2)


def test_step_one_changes_parameters_and_snapshot(lm_one_step):
    cfg, res = lm_one_step  # task "lm", steps=1, warmup=10, snapshot_steps=(0, 1)
    assert cfg.steps == 1 and cfg.warmup == 10 and res.step == 1
    _, params0, _ = init_state(cfg)
    moved = [float(np.max(np.abs(np.asarray(a) - np.asarray(b))))
             for a, b in zip(jax.tree.leaves(res.params), jax.tree.leaves(params0))]
    assert min(moved) > 0  # every parameter array moved (Adam: by about lr / warmup = 1e-3)
    assert max(moved) == pytest.approx(cfg.lr / cfg.warmup, rel=0.2)
    s0, s1 = (np.asarray(s["profiles"]["total"]) for s in res.snapshots)
    assert not np.allclose(s0, s1, rtol=1e-6, atol=0)
