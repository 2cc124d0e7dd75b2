"""The training loop of one run: jitted steps, metrics.jsonl, snapshots.jsonl, orbax ckpt/.

    result = train(cfg, run_dir)       # resumes from run_dir/ckpt if present

Run directory layout: train_config.json (this run's TrainConfig as JSON,
``TrainConfig(**json.load(f))`` rebuilds it; checked on resume), metrics.jsonl (one line per step: step, loss, loss_lm, loss_kv,
grad_norm, lr), snapshots.jsonl (one line per snapshot step, see
snapshots.py), ckpt/<step>/ (orbax). Batch t depends only on (seed, t), so a
run interrupted and resumed from a checkpoint ends with exactly the same
parameters and optimizer state as an uninterrupted one. The model runs under
:func:`.training_execution` (cfg), resolved once when the run starts (attn_impl
"auto" may build the fused CPU kernel then); RunResult.execution says what ran.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib

import jax
import numpy as np
from flax import nnx
from tqdm.auto import tqdm

from ..io import jsonable
from ..nn import Decoder, Execution
from ..parallel import data_parallel, default_mesh, is_process0, mesh_size
from . import checkpoint, tasks
from .config import TrainConfig, training_execution
from .snapshots import take_snapshot
from .step import make_optimizer, schedule, train_step_for


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


def _read_jsonl(path: pathlib.Path, upto: int) -> list[dict]:
    if not path.exists():
        return []
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in rows if r["step"] <= upto]


def _write_jsonl(path: pathlib.Path, rows: list[dict]) -> None:
    if is_process0():  # multi-host: one writer
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _check_config(run_dir: pathlib.Path, cfg: TrainConfig) -> None:
    path = run_dir / "train_config.json"
    record = jsonable(cfg)
    if path.exists():
        try:
            old = json.loads(path.read_text())
        except json.JSONDecodeError as err:
            raise checkpoint.CheckpointError(f"{path} is corrupt ({err}); delete {run_dir} or choose another --out") from err
        if old != record:
            diff = sorted(k for k in record if old.get(k) != record[k])
            raise checkpoint.CheckpointError(
                f"{run_dir} holds a run with a different config (fields {diff}); use another --out")
    else:
        path.write_text(json.dumps(record, indent=2) + "\n")


def train(cfg: TrainConfig, run_dir: str | pathlib.Path, *, progress: bool = False,
          stop_after: int | None = None, mesh=None) -> RunResult:
    """Train (or resume) one run and record metrics, snapshots and checkpoints.

    Args:
      cfg: the run.
      run_dir: this run's directory (created); an existing checkpoint there is resumed.
      progress: show a tqdm bar.
      stop_after: stop once this many steps are done (simulates an interruption;
        a checkpoint is written there).
      mesh: data-parallel over this Mesh's axis "data" (default:
        parallel.default_mesh(), i.e. none): batch split, state replicated,
        same checkpoints (parallel/data_parallel.py).

    Raises:
      CheckpointError: the directory holds a corrupt checkpoint or another config's run.
    """
    run_dir = pathlib.Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    _check_config(run_dir, cfg)
    execution = training_execution(cfg)
    graphdef, params, opt_state = init_state(cfg)
    mngr = checkpoint.checkpoint_manager(run_dir / "ckpt", cfg)
    restored = checkpoint.restore_latest(mngr, params, opt_state)
    start = 0
    if restored is not None:
        start, params, opt_state = restored
    metrics = _read_jsonl(run_dir / "metrics.jsonl", start)
    snaps = _read_jsonl(run_dir / "snapshots.jsonl", start)
    _write_jsonl(run_dir / "metrics.jsonl", metrics)
    _write_jsonl(run_dir / "snapshots.jsonl", snaps)
    evalset = tasks.eval_set(cfg) if cfg.task != "lm" else None
    wanted = set(cfg.snapshots)
    if start == 0 and 0 in wanted and not snaps:
        snaps.append(_append(run_dir / "snapshots.jsonl", take_snapshot(cfg, graphdef, params, 0, evalset, execution)))
    data_parallel_devices = mesh_size(mesh if mesh is not None else default_mesh())
    streams = cfg.streams if data_parallel_devices == 1 else 1  # data-parallel: the devices split the batch
    step_fn, lr = train_step_for(graphdef, cfg, streams, execution), schedule(cfg)
    params, opt_state, step_fn, place = data_parallel(mesh, params, opt_state, step_fn)
    end = cfg.steps if stop_after is None else min(cfg.steps, stop_after)
    for t in tqdm(range(start, end), disable=not progress, desc=f"{cfg.intervention} seed {cfg.seed}",
                  initial=start, total=end, leave=False):
        params, opt_state, m = step_fn(params, opt_state, place(tasks.train_batch(cfg, t)))
        row = {"step": t + 1, **{k: float(v) for k, v in m.items()}, "lr": float(lr(t))}
        metrics.append(_append(run_dir / "metrics.jsonl", row))
        if t + 1 in wanted:
            snap = take_snapshot(cfg, graphdef, params, t + 1, evalset, execution)
            snaps.append(_append(run_dir / "snapshots.jsonl", snap))
        if (t + 1) % cfg.ckpt_every == 0 or t + 1 == end:
            checkpoint.save(mngr, t + 1, params, opt_state)
    mngr.close()
    return RunResult(cfg=cfg, execution=execution, step=max(end, start), graphdef=graphdef, params=params, opt_state=opt_state,
                     metrics=metrics, snapshots=snaps)


def _append(path: pathlib.Path, row: dict) -> dict:
    if is_process0():  # multi-host: one writer
        with open(path, "a") as f:
            f.write(json.dumps(row) + "\n")  # NaN (no boundary) round-trips as JSON NaN
    return row


def same_state(a: RunResult, b: RunResult) -> bool:
    """Bitwise equality of parameters and optimizer state of two runs."""
    la, ta = jax.tree.flatten((a.params, a.opt_state))
    lb, tb = jax.tree.flatten((b.params, b.opt_state))
    return ta == tb and all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(la, lb))
