"""Crash safety of training: sealed checkpoints, fallback past damaged ones, torn JSON lines, divergence.

Every resumed run is compared bitwise (parameters, optimizer state, metrics)
with one uninterrupted run of the same config, trained once per config.
"""

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time

import jax
import jax.numpy as jnp
import pytest

from lostmid_jax.runs import jsonable
from lostmid_jax.train import CheckpointError, TrainConfig, checkpoint, init_state, same_state, train
from lostmid_jax.train import loop
from lostmid_jax.train.loop import TrainingDiverged, read_jsonl

_STRAIGHT = {}


class Killed(Exception):
    """Stands for the process dying at that point."""


@pytest.fixture
def straight(tiny, tmp_path_factory):
    """The uninterrupted run of ``tiny`` (checkpointing choices do not change its numbers);
    ``straight.run_dir`` is its directory (do not modify it)."""
    key = json.dumps(jsonable(tiny), sort_keys=True)
    if key not in _STRAIGHT:
        run_dir = tmp_path_factory.mktemp("straight")
        _STRAIGHT[key] = train(tiny, run_dir)
        _STRAIGHT[key].run_dir = run_dir
    return _STRAIGHT[key]


def assert_same_run(result, reference, run_dir):
    assert result.step == reference.step
    assert same_state(result, reference)  # parameters and optimizer state, bitwise
    assert result.metrics == reference.metrics  # every value of every step, exactly
    rows = read_jsonl(run_dir / "metrics.jsonl")
    assert rows == reference.metrics


def steps_on_disk(run_dir):
    return sorted(int(p.name) for p in (run_dir / "ckpt").iterdir() if p.name.isdigit())


def largest_file(step_dir):
    """The largest array-data file (orbax/tensorstore chunks live in .../d/)."""
    files = [p for p in step_dir.rglob("*") if p.is_file() and p.parent.name == "d"]
    return max(files, key=lambda p: p.stat().st_size)


def flip_byte(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def truncate(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


@pytest.mark.parametrize("damage", [pytest.param(flip_byte, marks=pytest.mark.extended), truncate],
                         ids=["flipped_byte", "truncated"])
def test_damaged_latest_checkpoint_falls_back_to_previous(tiny, straight, tmp_path, caplog, damage):
    e = tiny.ckpt_every
    train(tiny, tmp_path, stop_after=2 * e)
    assert steps_on_disk(tmp_path) == [e, 2 * e]
    victim = largest_file(tmp_path / "ckpt" / str(2 * e))
    damage(victim)
    resumed = train(tiny, tmp_path)
    warned = " ".join(r.getMessage() for r in caplog.records if r.levelname == "WARNING")
    assert str(tmp_path / "ckpt" / str(2 * e)) in warned and victim.name in warned
    assert f"resuming from {tmp_path / 'ckpt' / str(e)}" in warned
    assert_same_run(resumed, straight, tmp_path)
    assert steps_on_disk(tmp_path) == [tiny.steps - e, tiny.steps]  # keep=2, the damaged step replaced
    for s in steps_on_disk(tmp_path):
        checkpoint.verify(tmp_path / "ckpt" / str(s), s)


def test_damaged_final_checkpoint_of_a_finished_run_is_trained_again(tiny, straight, tmp_path, caplog):
    run_dir = tmp_path / "run"
    shutil.copytree(straight.run_dir, run_dir)
    last = run_dir / "ckpt" / str(tiny.steps)
    flip_byte(largest_file(last))
    resumed = train(tiny, run_dir)  # falls back to the previous checkpoint and trains the last steps again
    assert any(str(last) in r.getMessage() and "corrupt" in r.getMessage() for r in caplog.records)
    assert_same_run(resumed, straight, run_dir)
    checkpoint.verify(last, tiny.steps)


def test_all_checkpoints_damaged_raises_naming_the_directory(tiny, tmp_path):
    e = tiny.ckpt_every
    train(tiny, tmp_path, stop_after=2 * e)
    flip_byte(largest_file(tmp_path / "ckpt" / str(e)))
    (tmp_path / "ckpt" / str(2 * e) / checkpoint.MANIFEST).unlink()  # unsealed: not intact either
    before = sorted((p.relative_to(tmp_path), p.read_bytes()) for p in tmp_path.rglob("*") if p.is_file())
    with pytest.raises(CheckpointError, match="no intact checkpoint in .*ckpt") as info:
        train(tiny, tmp_path)
    assert str(tmp_path / "ckpt") in str(info.value) and "has no MANIFEST" in str(info.value)
    after = sorted((p.relative_to(tmp_path), p.read_bytes()) for p in tmp_path.rglob("*") if p.is_file())
    assert after == before  # a refused resume changes nothing on disk


def test_crash_before_sealing_keeps_the_last_intact_checkpoint(tiny, straight, tmp_path, monkeypatch, caplog):
    """keep=1: the process dies after orbax wrote step 2e but before its manifest; step e must survive."""
    cfg, e = tiny.replace(keep=1), tiny.ckpt_every
    real = checkpoint.write_manifest

    def dies_at_second(directory, step):
        if step == 2 * e:
            raise Killed("killed while sealing")
        return real(directory, step)

    monkeypatch.setattr(checkpoint, "write_manifest", dies_at_second)
    with pytest.raises(Killed):
        train(cfg, tmp_path)
    monkeypatch.undo()
    assert steps_on_disk(tmp_path) == [e, 2 * e]
    assert checkpoint.check_intact(tmp_path / "ckpt" / str(e), e) is None
    assert "no MANIFEST" in checkpoint.check_intact(tmp_path / "ckpt" / str(2 * e), 2 * e)
    resumed = train(cfg, tmp_path)
    assert any("has no MANIFEST" in r.getMessage() for r in caplog.records)
    assert_same_run(resumed, straight, tmp_path)
    assert steps_on_disk(tmp_path) == [tiny.steps]  # keep=1 once the last step is sealed


def test_checkpoint_with_non_finite_state_is_refused(tiny, straight, tmp_path, caplog):
    e = tiny.ckpt_every
    train(tiny, tmp_path, stop_after=e)
    _, params, opt_state = init_state(tiny)
    mngr = checkpoint.checkpoint_manager(tmp_path / "ckpt", tiny)
    checkpoint.save(mngr, 2 * e, jax.tree.map(lambda x: x * jnp.nan, params), opt_state)  # sealed, but NaN
    mngr.close()
    resumed = train(tiny, tmp_path)
    assert any("NaN or inf" in r.getMessage() and str(2 * e) in r.getMessage() for r in caplog.records)
    assert_same_run(resumed, straight, tmp_path)


def test_torn_last_metrics_line_is_dropped_and_the_run_resumes(tiny, straight, tmp_path, caplog):
    e = tiny.ckpt_every
    train(tiny, tmp_path, stop_after=e)
    with open(tmp_path / "metrics.jsonl", "a") as f:
        f.write('{"step": %d, "loss": 0.12' % (e + 1))  # killed while appending
    resumed = train(tiny, tmp_path)
    assert any("torn last line" in r.getMessage() and "metrics.jsonl" in r.getMessage() for r in caplog.records)
    assert_same_run(resumed, straight, tmp_path)


def test_read_jsonl_drops_only_a_torn_last_line(tmp_path, caplog):
    path = tmp_path / "snapshots.jsonl"
    path.write_text('{"step": 0, "x": NaN}\n\n{"step": 1}\n{"step": 2, "profiles": {"total": [1.0, 2')
    rows = read_jsonl(path)
    assert [r["step"] for r in rows] == [0, 1] and math.isnan(rows[0]["x"])
    assert any(str(path) in r.getMessage() and "line 4" in r.getMessage() for r in caplog.records)
    path.write_text('{"step": 0}\n{"step": 1}')  # complete, only the newline missing: kept
    assert [r["step"] for r in read_jsonl(path, upto=1)] == [0, 1]


@pytest.mark.parametrize("text, line", [
    ('{"step": 1}\n{"step": 2, "loss": 0.5\n{"step": 3}\n', 2),  # malformed middle line
    ('{"step": 1}\n{"step": 2, "lo\n', 2),                      # malformed but newline-terminated: not torn
    ('{"step": 1}\n[1, 2]\n', 2),                                # not an object
    ('{"step": 1}\n{"step": true}\n', 2),                        # step not an int
    ('{"loss": 1.0}\n', 1),                                      # no step
])
def test_malformed_jsonl_line_names_file_and_line(tmp_path, text, line):
    path = tmp_path / "metrics.jsonl"
    path.write_text(text)
    with pytest.raises(ValueError, match=f"metrics.jsonl line {line} ") as info:
        read_jsonl(path)
    assert not isinstance(info.value, json.JSONDecodeError) and str(path) in str(info.value)


def test_malformed_metrics_line_blocks_resume_with_file_and_line(tiny, tmp_path):
    train(tiny, tmp_path, stop_after=tiny.ckpt_every)
    path = tmp_path / "metrics.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    lines[2] = lines[2][:10] + "\n"
    path.write_text("".join(lines))
    with pytest.raises(ValueError, match="metrics.jsonl line 3 is not valid JSON"):
        train(tiny, tmp_path)


@pytest.mark.parametrize("field", ["lr", "clip", "weight_decay", "middle_strength"])
@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_non_finite_float_fields_are_refused(field, value):
    with pytest.raises(ValueError, match=f"{field} must be a finite number"):
        TrainConfig(**{field: value})


def _poisoned_steps(monkeypatch, at: int, poison):
    """Make the training step ``at`` (1-based, counted from a fresh start) return poison(params, metrics)."""
    real = loop.train_step_for

    def step_for(*args, **kwargs):
        fn, calls = real(*args, **kwargs), []

        def step(params, opt_state, batch):
            params, opt_state, metrics = fn(params, opt_state, batch)
            calls.append(1)
            if len(calls) == at:
                params, metrics = poison(params, metrics)
            return params, opt_state, metrics

        return step

    monkeypatch.setattr(loop, "train_step_for", step_for)


def test_nan_loss_stops_at_once_and_keeps_the_last_checkpoint(tiny, tmp_path, monkeypatch):
    e = tiny.ckpt_every
    _poisoned_steps(monkeypatch, 2 * e, lambda p, m: (p, {**m, "loss": jnp.nan, "loss_kv": jnp.nan}))
    with pytest.raises(TrainingDiverged, match=rf"diverged at step {2 * e}: non-finite loss, loss_kv .*loss=nan"
                                               r".*smaller lr") as info:
        train(tiny, tmp_path)
    assert isinstance(info.value, ValueError) and str(tmp_path / "ckpt" / str(e)) in str(info.value)
    assert steps_on_disk(tmp_path) == [e]  # the diverged step was not checkpointed
    checkpoint.verify(tmp_path / "ckpt" / str(e), e)
    assert [r["step"] for r in read_jsonl(tmp_path / "metrics.jsonl")] == list(range(1, 2 * e + 1))


def test_non_finite_parameters_are_never_checkpointed(tiny, tmp_path, monkeypatch):
    e = tiny.ckpt_every
    _poisoned_steps(monkeypatch, 2 * e, lambda p, m: (jax.tree.map(lambda x: x * jnp.inf, p), m))
    with pytest.raises(TrainingDiverged, match=f"step {2 * e}: non-finite parameters"):
        train(tiny, tmp_path)
    assert steps_on_disk(tmp_path) == [e]


_CHILD = r"""
import os, signal, sys, time
import jax
jax.config.update("jax_enable_x64", True)  # as tests/conftest.py
import json
from lostmid_jax.train import TrainConfig, checkpoint, tasks, train

mode, run_dir, cfg = sys.argv[1], sys.argv[2], TrainConfig(**json.loads(sys.argv[3]))
if mode == "parent_kills":  # slow steps, so the parent's SIGKILL lands mid-run
    batch = tasks.train_batch
    tasks.train_batch = lambda c, t: (time.sleep(0.03), batch(c, t))[1]
else:  # dies between orbax's write of the second checkpoint and its manifest
    seal = checkpoint.write_manifest
    def write_manifest(directory, step):
        if step == 2 * cfg.ckpt_every:
            os.kill(os.getpid(), signal.SIGKILL)
        return seal(directory, step)
    checkpoint.write_manifest = write_manifest
train(cfg, run_dir)
"""


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["parent_kills", "dies_while_sealing"])
def test_resume_after_sigkill_is_bitwise_exact(tiny, straight, tmp_path, mode):
    """A real SIGKILL of a training process after its first checkpoint; resume here; compare bitwise."""
    cfg, e = tiny.replace(keep=1), tiny.ckpt_every
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    child = subprocess.Popen([sys.executable, "-c", _CHILD, mode, str(tmp_path), json.dumps(jsonable(cfg))],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    first = tmp_path / "ckpt" / str(e) / checkpoint.MANIFEST
    deadline = time.monotonic() + 300
    while mode == "parent_kills" and not first.exists() and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    if mode == "parent_kills" and child.poll() is None:
        os.kill(child.pid, signal.SIGKILL)
    _, err = child.communicate(timeout=300)
    assert child.returncode == -signal.SIGKILL, err.decode()[-2000:]
    assert first.exists()
    steps = steps_on_disk(tmp_path)
    assert steps[-1] < cfg.steps
    if mode == "dies_while_sealing":  # keep=1, yet the intact step e survived the unsealed step 2e
        assert steps == [e, 2 * e] and not (tmp_path / "ckpt" / str(2 * e) / checkpoint.MANIFEST).exists()
    resumed = train(cfg, tmp_path)
    assert_same_run(resumed, straight, tmp_path)
