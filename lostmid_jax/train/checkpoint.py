"""Orbax checkpoints of (params, opt_state, step), each sealed by a SHA-256 manifest, with safe resume.

    mngr = checkpoint_manager(run_dir / "ckpt", cfg)
    save(mngr, step, params, opt_state, keep=cfg.keep)     # orbax writes, then the manifest, then rotation
    step, params, opt_state = restore_latest(mngr, params, opt_state)   # templates give structure

Integrity: once orbax has finished writing ``ckpt/<step>/``, :func:`write_manifest`
records the size and SHA-256 of every file under it in ``ckpt/<step>/MANIFEST``
(written to a fresh temporary name, fsynced, then renamed: it exists only complete).
A step is *intact* when its manifest exists and every listed file has its
recorded size and hash (:func:`verify`); a step without a manifest (the
process died between orbax's write and the manifest, or an older version
wrote it) is unverified, not intact. :func:`restore_latest` tries the steps
newest first and resumes from the newest intact one whose tree, shapes and
dtypes match and whose values are finite, logging a warning for each newer
step it skips. Rotation is ours (orbax's ``max_to_keep`` is off): older steps
are deleted only after the new step's manifest is written and verified, so
the last intact checkpoint survives any crash.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import pathlib
import sys

import jax
import numpy as np
import orbax.checkpoint as ocp

from ..atomic import is_temporary, write_atomic
from ..parallel import is_process0
from ..untrusted import read_json
from .config import TrainConfig

MANIFEST = "MANIFEST"  # ckpt/<step>/MANIFEST: {"format", "step", "files": {relative path: {"size", "sha256"}}}
_FORMAT = "lostmid-checkpoint-sha256/1"
_LOG = logging.getLogger(__name__)


class CheckpointError(ValueError):
    """A checkpoint that cannot be restored (corrupt, unverified, or from another config)."""


def checkpoint_manager(directory: str | pathlib.Path, cfg: TrainConfig) -> ocp.CheckpointManager:
    """A manager of the steps under ``directory`` (rotation to ``cfg.keep`` is done by :func:`save`).

    Orbax's temporary directories left by a killed write are removed.
    """
    del cfg  # the keep count is passed to save(), which rotates only after verifying
    options = ocp.CheckpointManagerOptions(max_to_keep=None, create=True, cleanup_tmp_directories=True)
    return ocp.CheckpointManager(pathlib.Path(directory).resolve(), options=options)


def step_dir(mngr: ocp.CheckpointManager, step: int) -> pathlib.Path:
    """The directory ``<mngr.directory>/<step>`` of one checkpoint."""
    return pathlib.Path(mngr.directory) / str(step)


def save(mngr: ocp.CheckpointManager, step: int, params, opt_state, *, keep: int | None = None) -> None:
    """Save the state after ``step`` optimizer steps, seal it with its manifest, then rotate.

    Blocks until written. A step directory already there (an unusable
    checkpoint that resume fell back past) is replaced. After the new step's
    manifest is written and verified, steps older than it are deleted except
    the ``keep`` - 1 newest intact ones (``keep`` None: delete nothing).

    Raises:
      CheckpointError: the new checkpoint does not verify after writing (nothing is deleted then).
    """
    where = step_dir(mngr, step)
    if step in mngr.all_steps():
        _LOG.warning("replacing the unusable checkpoint %s with a new one", where)
        mngr.delete(step)
    mngr.save(step, args=ocp.args.StandardSave({"params": params, "opt_state": opt_state}), force=True)
    mngr.wait_until_finished()
    if is_process0():  # multi-host: one writer, the others wait for it
        write_manifest(where, step)
    _sync(f"lostmid_manifest_{step}")
    verify(where, step)
    if keep is not None:
        _rotate(mngr, step, keep)


class _HoldErrors(logging.Filter):
    """Holds back the ERROR records of a logger (:func:`quiet_orbax_failures`)."""

    def __init__(self):
        super().__init__()
        self.held: list[logging.LogRecord] = []

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR:
            self.held.append(record)
            return False
        return True


@contextlib.contextmanager
def quiet_orbax_failures():
    """Within (a run's use of its checkpoint manager, closing included): when the block fails, orbax's own
    reports of the failed write are dropped (ERROR records with tracebacks on the "absl" logger from its
    writer threads, and "Event loop is closed" errors of its closed loops: about 100 lines for one full
    disk), so the failure prints as the one line of the command, with its path (an OSError names its file:
    experiments.script.one_line); the filter of closed-loop errors stays after a failure, as orbax's
    threads may still end after it. When the block succeeds, the ERROR records held are logged as usual."""
    logger, hold, hook = logging.getLogger("absl"), _HoldErrors(), sys.unraisablehook

    def unraisable(info):
        if not (isinstance(info.exc_value, RuntimeError) and "Event loop is closed" in str(info.exc_value)):
            hook(info)

    logger.addFilter(hold)
    sys.unraisablehook = unraisable
    try:
        yield
    except BaseException:
        logger.removeFilter(hold)
        raise  # the hook stays: orbax's threads of the failed write may still report closed loops
    logger.removeFilter(hold)
    sys.unraisablehook = hook
    for record in hold.held:  # the block succeeded: its errors are the user's to see
        logger.handle(record)


def _rotate(mngr: ocp.CheckpointManager, newest: int, keep: int) -> None:
    kept = 1  # the new step, just verified
    for s in sorted((s for s in mngr.all_steps() if s < newest), reverse=True):
        if kept < keep:
            problem = check_intact(step_dir(mngr, s), s)
            if problem is None:
                kept += 1
                continue
            _LOG.warning("deleting the unusable checkpoint %s (%s)", step_dir(mngr, s), problem)
        mngr.delete(s)


def _sync(name: str) -> None:
    if jax.process_count() > 1:
        from jax.experimental import multihost_utils

        multihost_utils.sync_global_devices(name)


def _files(directory: pathlib.Path) -> list[pathlib.Path]:
    return sorted(p for p in directory.rglob("*")
                  if p.is_file() and not (p.parent == directory and (p.name == MANIFEST or is_temporary(p.name, MANIFEST))))


def _sha256(path: pathlib.Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def write_manifest(directory: str | pathlib.Path, step: int) -> pathlib.Path:
    """Write ``directory/MANIFEST`` (size and SHA-256 of every other file under it) atomically.

    Written to a fresh temporary name, fsynced, then renamed, so a reader sees either
    no manifest or a complete one. Returns the manifest's path.
    """
    directory = pathlib.Path(directory)
    files = {p.relative_to(directory).as_posix(): {"size": p.stat().st_size, "sha256": _sha256(p)}
             for p in _files(directory)}
    record = {"format": _FORMAT, "step": int(step), "files": files}
    return write_atomic(directory / MANIFEST, json.dumps(record, indent=1, sort_keys=True) + "\n", durable=True)


def check_intact(directory: str | pathlib.Path, step: int) -> str | None:
    """None if the checkpoint in ``directory`` matches its manifest, else what is wrong (one line)."""
    directory = pathlib.Path(directory)
    path = directory / MANIFEST
    if not path.is_file():
        return (f"it has no {MANIFEST}, so it is unverified (the process stopped before sealing it, "
                f"or an older lostmid-jax wrote it)")
    try:
        record = read_json(path)
        files = record["files"]
        ok = record.get("format") == _FORMAT and record.get("step") == step and isinstance(files, dict)
        ok = ok and all(isinstance(v, dict) and isinstance(v.get("size"), int) and isinstance(v.get("sha256"), str)
                        for v in files.values())
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        ok = False
    if not ok:
        return f"its {MANIFEST} is unreadable or not for step {step}"
    for name, want in sorted(files.items()):
        p = directory / name
        if not p.is_file():
            return f"{name} is missing"
        size = p.stat().st_size
        if size != want["size"]:
            return f"{name} is truncated or extended ({size} bytes, the manifest says {want['size']})"
        if _sha256(p) != want["sha256"]:
            return f"{name} is corrupt (its SHA-256 differs from the manifest's)"
    return None


def verify(directory: str | pathlib.Path, step: int) -> None:
    """Check the checkpoint in ``directory`` against its manifest.

    Raises:
      CheckpointError: naming the directory and the first file that is missing, resized or changed.
    """
    problem = check_intact(directory, step)
    if problem is not None:
        raise CheckpointError(f"checkpoint {directory} is corrupt or unverified: {problem}")


def all_finite(tree) -> bool:
    """Whether every floating-point leaf of ``tree`` is finite (no NaN or inf).

    Reads each leaf's first addressable copy (the whole array for replicated or single-device state).
    """
    for leaf in jax.tree.leaves(tree):
        local = leaf.addressable_data(0) if isinstance(leaf, jax.Array) else leaf
        a = np.asarray(local)
        if np.issubdtype(a.dtype, np.inexact) and not np.isfinite(a).all():
            return False
    return True


def intact_steps(mngr: ocp.CheckpointManager) -> list[int]:
    """Sorted steps whose checkpoint matches its manifest (:func:`check_intact`)."""
    return sorted(s for s in mngr.all_steps() if check_intact(step_dir(mngr, s), s) is None)


def restore_step(mngr: ocp.CheckpointManager, step: int, params, opt_state):
    """(params, opt_state) of checkpoint ``step``; ``params`` and ``opt_state`` are templates.

    Raises:
      CheckpointError: the step is not intact, orbax cannot restore it, or it does not match the
        templates or holds NaN / inf (names the directory and the problem).
    """
    got, problem = _restore(mngr, step, {"params": params, "opt_state": opt_state})
    if problem is not None:
        raise CheckpointError(f"checkpoint {step_dir(mngr, step)} is unusable: {problem}")
    return got["params"], got["opt_state"]


def _restore(mngr: ocp.CheckpointManager, step: int, target: dict) -> tuple[dict | None, str | None]:
    """(tree, None) of checkpoint ``step`` placed like ``target``, or (None, what is wrong with it)."""
    problem = check_intact(step_dir(mngr, step), step)
    if problem is not None:
        return None, problem
    try:
        got = mngr.restore(step, args=ocp.args.StandardRestore(jax.tree.map(ocp.utils.to_shape_dtype_struct, target)))
    except Exception as err:  # orbax raises many types for damaged or mismatched trees
        return None, f"orbax cannot restore it ({type(err).__name__}: {str(err)[:300]})"
    problem = _mismatch(got, target)
    return (jax.tree.map(_placed_like, got, target), None) if problem is None else (None, problem)


def restore_latest(mngr: ocp.CheckpointManager, params, opt_state):
    """(step, params, opt_state) of the newest usable checkpoint, or None when there is none.

    ``params`` and ``opt_state`` are templates (structure, shapes, dtypes,
    placement: leaves of an uncommitted template come back uncommitted).
    Steps are tried newest first; a step is usable when it is intact
    (:func:`check_intact`), orbax restores it, its tree, shapes and dtypes
    match the templates and its values are finite. Each skipped step is
    logged (warning) with its path and reason, and so is the fallback.

    Raises:
      CheckpointError: there are checkpoints but none is usable; names the
        directory and every step's problem.
    """
    steps = sorted(mngr.all_steps(), reverse=True)
    if not steps:
        return None
    target = {"params": params, "opt_state": opt_state}
    skipped = []
    for step in steps:
        where = step_dir(mngr, step)
        got, problem = _restore(mngr, step, target)
        if problem is None:
            if skipped:
                _LOG.warning("resuming from %s (step %d), the newest intact checkpoint; skipped newer: %s",
                             where, step, ", ".join(str(p) for p, _ in skipped))
            return step, got["params"], got["opt_state"]
        skipped.append((where, problem))
        _LOG.warning("checkpoint %s is unusable: %s%s", where, problem,
                     "; trying the previous one" if len(skipped) < len(steps) else "")
    detail = "; ".join(f"{p.name}: {why}" for p, why in skipped)
    raise CheckpointError(
        f"no intact checkpoint in {mngr.directory}: every step is corrupt or incompatible with this config "
        f"({detail}); delete {mngr.directory} to start over, or choose another --out")


def _placed_like(x, template):
    """``x`` uncommitted (default device) where the template is: orbax returns committed arrays,
    which would make the cached jitted training step compile a second time."""
    if isinstance(template, jax.Array) and not template.committed and isinstance(x, jax.Array) \
            and x.is_fully_addressable:
        return jax.device_put(np.asarray(x))
    return x


def _mismatch(got, target) -> str | None:
    a, ta = jax.tree.flatten(got)
    b, tb = jax.tree.flatten(target)
    if ta != tb or any(np.shape(x) != np.shape(y) or _dtype(x) != _dtype(y) for x, y in zip(a, b)):
        return "it does not match this config's parameters (tree, shapes or dtypes differ)"
    if not all_finite(got):
        return "it holds NaN or inf parameters or optimizer state"
    return None


def _dtype(x) -> np.dtype:
    return np.dtype(x.dtype) if hasattr(x, "dtype") else np.asarray(x).dtype
