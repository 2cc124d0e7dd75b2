"""The training loop of one run: jitted steps, metrics.jsonl, snapshots.jsonl, orbax ckpt/.

    result = train(cfg, run_dir)       # resumes from run_dir/ckpt if present

Run directory layout: train_config.json (this run's TrainConfig as JSON,
``TrainConfig(**json.load(f))`` rebuilds it; checked on resume), metrics.jsonl (one line per step: step, loss, loss_lm, loss_kv,
grad_norm, lr), snapshots.jsonl (one line per snapshot step, see
snapshots.py), ckpt/<step>/ (orbax, sealed by a SHA-256 manifest, see
checkpoint.py). Batch t depends only on (seed, t), so a run interrupted
(even by SIGKILL, even during a checkpoint write) and resumed from a
checkpoint ends with exactly the same parameters, optimizer state and
metrics as an uninterrupted one. Resume takes the newest intact checkpoint
(falling back past corrupt or unsealed ones, with a warning) and drops a
torn last line of the JSON-lines files (with a warning). A non-finite loss
or gradient norm stops the run at once with :class:`TrainingDiverged`,
before that state is checkpointed. The model runs under
:func:`.training_execution` (cfg), resolved once when the run starts (attn_impl
"auto" may build the fused CPU kernel then); RunResult.execution says what ran.

The JSON-lines files are strict JSON (RFC 8259): a NaN or inf value (e.g. a
boundary spike with no boundary, or the row of a diverged step) is written as
null, and :func:`read_jsonl` reads null back as NaN.

A run that reaches its last step seals both files: a last line
``{"sealed": {"records": n, "sha256": ...}}`` holds the count and SHA-256 of
the bytes above it, so a file edited after its run (a changed value, a row
added or removed) is refused by :func:`read_jsonl`, naming the file, instead
of flowing into the run's tables. Resuming a sealed run rewrites the records
and seals them again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import math
import pathlib

import jax
import numpy as np
from flax import nnx
from tqdm.auto import tqdm

from ..atomic import write_atomic
from ..nn import Decoder, Execution
from ..parallel import data_parallel, default_mesh, is_process0, mesh_size
from ..runs.config import jsonable
from ..runs.stop import checked
from ..untrusted import parse_json, read_json
from . import checkpoint, tasks
from .config import TrainConfig, training_execution
from .snapshots import take_snapshot
from .step import make_optimizer, schedule, train_step_for

_LOG = logging.getLogger(__name__)


class TrainingDiverged(ValueError):
    """The loss, gradient norm or state became NaN or inf; the run stopped before checkpointing that step."""


@dataclasses.dataclass(kw_only=True, eq=False)
class RunResult:
    """What a finished (or stopped) run holds: its config, how it ran, final step, state and records."""

    cfg: TrainConfig
    execution: Execution
    step: int
    graphdef: object
    params: object
    opt_state: object
    metrics: list[dict]
    snapshots: list[dict]


def init_state(cfg: TrainConfig):
    """(graphdef, params, opt_state) of the freshly initialized model (seed ``cfg.seed``)."""
    graphdef, params = nnx.split(Decoder(cfg.model, rngs=nnx.Rngs(cfg.seed)))
    return graphdef, params, make_optimizer(cfg).init(params)


def read_jsonl(path: str | pathlib.Path, upto: int | None = None) -> list[dict]:
    """The rows (JSON objects with an int "step") of a JSON-lines record, those with step <= ``upto``.

    A missing file has no rows; blank lines are skipped. A last line that is
    not newline-terminated and not valid JSON was torn by a process killed
    while appending it: it is dropped with a warning naming the file.

    Raises:
      ValueError: any other line is not a JSON object with an int "step"
        (names the file and the line number).
    """
    path = pathlib.Path(path)
    if not path.exists():
        return []
    data = _unsealed(path, path.read_bytes())
    lines = data.decode("utf-8", errors="replace").split("\n")
    tail = lines.pop()  # "" when the file ends with a newline
    rows = [_row(path, n, line) for n, line in enumerate(lines, 1) if line.strip()]
    if tail.strip():
        try:
            parse_json(tail, f"{path} line {len(lines) + 1}", allow_nan=True)
        except ValueError:
            _LOG.warning("%s: dropping its torn last line %d (%d bytes, no newline), written when the run "
                         "was killed", path, len(lines) + 1, len(tail))
        else:
            rows.append(_row(path, len(lines) + 1, tail))
    return rows if upto is None else [r for r in rows if r["step"] <= upto]


def strict_json(value):
    """``value`` with every NaN / inf float replaced by None (JSON null), recursively."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: strict_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict_json(v) for v in value]
    return value


def _dumps(row: dict) -> str:
    return json.dumps(strict_json(row), allow_nan=False)


def _nan_for_null(value):
    if value is None:
        return math.nan
    if isinstance(value, dict):
        return {k: _nan_for_null(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_nan_for_null(v) for v in value]
    return value


def _row(path: pathlib.Path, number: int, line: str) -> dict:
    try:
        row = parse_json(line, f"{path} line {number}", allow_nan=True)
    except ValueError as err:
        raise ValueError(f"{err}: {line[:80]!r}; repair or delete that line") from None
    step = row.get("step") if isinstance(row, dict) else None
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        raise ValueError(f"{path} line {number} must be a JSON object with an int 'step' >= 0, "
                         f"got {line[:80]!r}; repair or delete that line")
    return {k: v if k == "step" else _nan_for_null(v) for k, v in row.items()}


SEAL_KEY = "sealed"
"""The key of the last line of a sealed JSON-lines file: {"sealed": {"records": n, "sha256": hex}}."""


def _seal_line(data: bytes) -> str:
    records = sum(1 for line in data.split(b"\n") if line.strip())
    return json.dumps({SEAL_KEY: {"records": records, "sha256": hashlib.sha256(data).hexdigest()}})


def _unsealed(path: pathlib.Path, data: bytes) -> bytes:
    """The records of ``data`` (the bytes of ``path``) above its seal, checked against it; ``data`` when unsealed.

    Raises:
      ValueError: naming the file when it was changed after its run sealed it, or holds lines after its seal.
    """
    body, _, last = data.rstrip(b"\n").rpartition(b"\n")
    body = body + b"\n" if body else b""
    if f'{{"{SEAL_KEY}"'.encode() not in data:
        return data
    if not last.startswith(f'{{"{SEAL_KEY}"'.encode()):
        raise ValueError(f"{path} has lines after its seal (records were added after its run finished); "
                         "it is not the run's record: restore it or re-run into a new directory")
    if last.decode("utf-8", errors="replace") != _seal_line(body):
        raise ValueError(f"{path} was changed after its run sealed it (its records no longer match the seal's "
                         "count and SHA-256); restore it or re-run into a new directory")
    return body


def seal_jsonl(path: pathlib.Path) -> None:
    """Append the seal line to the JSON-lines file ``path`` (records count and SHA-256 of its bytes)."""
    if is_process0():
        data = path.read_bytes() if path.exists() else b""
        _write_atomic(path, data.decode("utf-8") + _seal_line(data) + "\n")


def _write_atomic(path: pathlib.Path, text: str) -> None:
    write_atomic(path, text)  # a reader (or a kill) sees the old file or the new one


def _write_jsonl(path: pathlib.Path, rows: list[dict]) -> None:
    if is_process0():  # multi-host: one writer
        _write_atomic(path, "".join(_dumps(r) + "\n" for r in rows))


def _check_config(run_dir: pathlib.Path, cfg: TrainConfig) -> None:
    path = run_dir / "train_config.json"
    record = jsonable(cfg)
    if path.exists():
        try:
            old = read_json(path)
        except ValueError as err:
            raise checkpoint.CheckpointError(f"{path} is corrupt ({err}); delete {run_dir} or choose another --out") from err
        if not isinstance(old, dict):
            raise checkpoint.CheckpointError(f"{path} is not a JSON object; delete {run_dir} or choose another --out")
        if old != record:
            diff = sorted(k for k in record if old.get(k) != record[k])
            raise checkpoint.CheckpointError(
                f"{run_dir} holds a run with a different config (fields {diff}); use another --out")
    elif is_process0():
        _write_atomic(path, json.dumps(record, indent=2) + "\n")


def _check_metric_steps(path: pathlib.Path, rows: list[dict], start: int) -> None:
    steps = [r["step"] for r in rows]
    if steps != list(range(1, start + 1)):
        missing = sorted(set(range(1, start + 1)) - set(steps))
        _LOG.warning("%s does not hold exactly one row per step 1..%d (the checkpoint's step): missing %s%s",
                     path, start, missing[:10], " ..." if len(missing) > 10 else "")


def train(cfg: TrainConfig, run_dir: str | pathlib.Path, *, progress: bool = False,
          stop_after: int | None = None, mesh=None, log=None) -> RunResult:
    """Train (or resume) one run and record metrics, snapshots and checkpoints.

    Args:
      cfg: the run.
      run_dir: this run's directory (created); an existing checkpoint there is
        resumed: the newest intact one (checkpoint.restore_latest).
      progress: show a tqdm bar.
      stop_after: stop once this many steps are done (simulates an interruption;
        a checkpoint is written there).
      mesh: data-parallel over this Mesh's axis "data" (default:
        parallel.default_mesh(), i.e. none): batch split, state replicated,
        same checkpoints (parallel/data_parallel.py).
      log: called with one line per set-up phase (building the model,
        resuming, the step-0 snapshot, the first training steps, which
        compile); default: this module's logger at DEBUG.

    Raises:
      CheckpointError: the directory holds another config's run, or checkpoints none of which is intact.
      ValueError: metrics.jsonl or snapshots.jsonl has a malformed line other than a torn last one.
      TrainingDiverged: the loss or gradient norm of a step (or the state to
        be checkpointed) is NaN or inf; raised before that step is checkpointed,
        naming the step and the values. Its metrics row is recorded.
    """
    run_dir = pathlib.Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    _check_config(run_dir, cfg)
    say = log or _LOG.debug
    say(f"{cfg.intervention} seed {cfg.seed}: building the model ({cfg.model.depth} layers, width "
        f"{cfg.model.width}) and the optimizer")
    execution = training_execution(cfg)
    graphdef, params, opt_state = init_state(cfg)
    with checkpoint.quiet_orbax_failures():  # a full disk: one line with the path, not orbax's ~100
        mngr = checkpoint.checkpoint_manager(run_dir / "ckpt", cfg)
        try:
            return _run(cfg, run_dir, mngr, execution, graphdef, params, opt_state, progress, stop_after, mesh, say)
        finally:
            mngr.close()


def _run(cfg, run_dir, mngr, execution, graphdef, params, opt_state, progress, stop_after, mesh, say) -> RunResult:
    tag = f"{cfg.intervention} seed {cfg.seed}"
    restored = checkpoint.restore_latest(mngr, params, opt_state)
    start = 0
    if restored is not None:
        start, params, opt_state = restored
        say(f"{tag}: resuming from its checkpoint at step {start}")
    metrics = read_jsonl(run_dir / "metrics.jsonl", start)
    snaps = read_jsonl(run_dir / "snapshots.jsonl", start)
    _check_metric_steps(run_dir / "metrics.jsonl", metrics, start)
    _write_jsonl(run_dir / "metrics.jsonl", metrics)
    _write_jsonl(run_dir / "snapshots.jsonl", snaps)
    evalset = tasks.eval_set(cfg) if cfg.task != "lm" else None
    wanted = set(cfg.snapshots)
    if start == 0 and 0 in wanted and not snaps:
        say(f"{tag}: step-0 snapshot (influence profiles, attention strength, accuracy; compiled on first use)")
        snaps.append(_append(run_dir / "snapshots.jsonl", take_snapshot(cfg, graphdef, params, 0, evalset, execution)))
    data_parallel_devices = mesh_size(mesh if mesh is not None else default_mesh())
    streams = cfg.streams if data_parallel_devices == 1 else 1  # data-parallel: the devices split the batch
    step_fn, lr = train_step_for(graphdef, cfg, streams, execution), schedule(cfg)
    params, opt_state, step_fn, place = data_parallel(mesh, params, opt_state, step_fn)
    end = cfg.steps if stop_after is None else min(cfg.steps, stop_after)
    saved = start if restored is not None else None
    if start < end:
        say(f"{tag}: training steps {start + 1}..{end} (the training step is compiled on first use)")
    for t in checked(tqdm(range(start, end), disable=not progress, desc=f"{cfg.intervention} seed {cfg.seed}",
                          initial=start, total=end, leave=False)):
        params, opt_state, m = step_fn(params, opt_state, place(tasks.train_batch(cfg, t)))
        row = {"step": t + 1, **{k: float(v) for k, v in m.items()}, "lr": float(lr(t))}
        metrics.append(_append(run_dir / "metrics.jsonl", row))
        bad = [k for k, v in row.items() if k != "step" and not math.isfinite(v)]
        if bad:
            raise TrainingDiverged(_diverged(cfg, row, f"non-finite {', '.join(bad)}", mngr, saved))
        if t + 1 in wanted:
            snap = take_snapshot(cfg, graphdef, params, t + 1, evalset, execution)
            snaps.append(_append(run_dir / "snapshots.jsonl", snap))
        if (t + 1) % cfg.ckpt_every == 0 or t + 1 == end:
            if not checkpoint.all_finite((params, opt_state)):
                raise TrainingDiverged(_diverged(cfg, row, "non-finite parameters or optimizer state", mngr, saved))
            checkpoint.save(mngr, t + 1, params, opt_state, keep=cfg.keep)
            saved = t + 1
    if end == cfg.steps:  # the run is complete: seal its records
        for name in ("metrics.jsonl", "snapshots.jsonl"):
            seal_jsonl(run_dir / name)
    return RunResult(cfg=cfg, execution=execution, step=max(end, start), graphdef=graphdef, params=params,
                     opt_state=opt_state, metrics=metrics, snapshots=snaps)


def _diverged(cfg: TrainConfig, row: dict, what: str, mngr, saved: int | None) -> str:
    values = ", ".join(f"{k}={v}" for k, v in row.items() if k != "step")
    kept = (f"the last checkpoint, {checkpoint.step_dir(mngr, saved)}, is kept" if saved is not None
            else "no checkpoint had been written")
    return (f"training diverged at step {row['step']}: {what} ({values}); stopped before checkpointing it, "
            f"{kept}; retry in a new run directory with a smaller lr (now {cfg.lr:g}, e.g. {cfg.lr / 10:g}) "
            f"or a smaller clip (now {cfg.clip:g})")


def _append(path: pathlib.Path, row: dict) -> dict:
    if is_process0():  # multi-host: one writer
        with open(path, "a") as f:
            f.write(_dumps(row) + "\n")  # NaN / inf as null, read back as NaN
    return row


def same_state(a: RunResult, b: RunResult) -> bool:
    """Bitwise equality of parameters and optimizer state of two runs."""
    la, ta = jax.tree.flatten((a.params, a.opt_state))
    lb, tb = jax.tree.flatten((b.params, b.opt_state))
    return ta == tb and all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(la, lb))
