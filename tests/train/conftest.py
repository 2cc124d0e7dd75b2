"""A tiny TrainConfig shared by the training tests (seconds to compile and run), and one shared run."""

import pytest

from lostmid_jax.train import TrainConfig, toy_model, train

TINY = dict(task="retrieval", steps=20, model=toy_model(width=16, depth=1, heads=2, kv_heads=1, vocab=16),
            kv_pairs=4, needle_bins=2, kv_batch=4, lm_length=24, doc_length=8, lm_batch=2, snapshot_steps=(),
            eval_per_bin=4, ckpt_every=5, warmup=2)


@pytest.fixture
def tiny():
    return TrainConfig(**TINY)


@pytest.fixture(scope="session")
def lm_one_step(tmp_path_factory):
    """(cfg, RunResult) of one LM step (warmup 10) with snapshots at steps 0 and 1: read, never modified,
    by test_snapshots.py and test_warmup.py (one compile and run for both)."""
    cfg = TrainConfig(**TINY).replace(task="lm", steps=1, warmup=10, snapshot_steps=(0, 1))
    return cfg, train(cfg, tmp_path_factory.mktemp("lm_one_step"))
