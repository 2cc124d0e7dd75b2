"""A tiny TrainConfig shared by the training tests (seconds to compile and run)."""

import pytest

from lostmid_jax.train import TrainConfig

TINY = dict(task="retrieval", steps=20, width=16, depth=1, heads=2, kv_heads=1, vocab=16, kv_pairs=4,
            depth_bins=2, kv_batch=4, lm_length=24, chunk=8, lm_batch=2, snapshot_steps=(),
            eval_per_bin=4, ckpt_every=5, warmup=2)


@pytest.fixture
def tiny():
    return TrainConfig(**TINY)
