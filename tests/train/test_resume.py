"""Resume: 20 steps straight == 10 + restore + 10; bad checkpoints give clear errors."""

import json

import numpy as np
import pytest

from lostmid_jax.train import CheckpointError, same_state, toy_model, train


def test_interrupted_run_resumes_to_identical_state(tiny, tmp_path):
    straight = train(tiny, tmp_path / "a")
    first = train(tiny, tmp_path / "b", stop_after=10)
    assert first.step == 10 and not same_state(first, straight)
    resumed = train(tiny, tmp_path / "b")
    assert resumed.step == 20
    assert same_state(straight, resumed)  # parameters and optimizer state, bitwise
    assert [m["step"] for m in resumed.metrics] == list(range(1, 21))
    assert [m["loss"] for m in resumed.metrics] == [m["loss"] for m in straight.metrics]
    lines = (tmp_path / "b" / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(x)["step"] for x in lines[:-1]] == list(range(1, 21))
    assert "sealed" in json.loads(lines[-1])  # the finished run sealed its records (train/loop.py)
    assert (tmp_path / "b" / "metrics.jsonl").read_bytes() == (tmp_path / "a" / "metrics.jsonl").read_bytes()
    assert np.isfinite(resumed.metrics[-1]["grad_norm"])
    assert resumed.metrics[0]["lr"] == pytest.approx(tiny.lr / tiny.warmup)  # warmup starts above 0


def test_other_config_in_same_dir_is_rejected(tiny, tmp_path):
    train(tiny, tmp_path, stop_after=5)
    with pytest.raises(CheckpointError, match="different config"):
        train(tiny.replace(model=toy_model(width=8, depth=1, heads=2, kv_heads=1, vocab=16)), tmp_path)


def test_corrupt_checkpoint_gives_clear_error(tiny, tmp_path):
    train(tiny, tmp_path, stop_after=5)
    for f in (tmp_path / "ckpt" / "5").rglob("*"):
        if f.is_file() and f.stat().st_size > 0 and "metadata" not in f.name:
            f.write_bytes(b"garbage")
    with pytest.raises(CheckpointError, match="corrupt or incompatible"):
        train(tiny, tmp_path)
