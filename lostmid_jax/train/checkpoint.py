"""Orbax checkpoints of (params, opt_state, step) with resume and clear errors.

    mngr = checkpoint_manager(run_dir / "ckpt", cfg)
    save(mngr, step, params, opt_state)
    step, params, opt_state = restore_latest(mngr, params, opt_state)   # templates give structure
"""

from __future__ import annotations

import pathlib

import jax
import numpy as np
import orbax.checkpoint as ocp

from .config import TrainConfig


class CheckpointError(ValueError):
    """A checkpoint that cannot be restored (corrupt, or from another config)."""


def checkpoint_manager(directory: str | pathlib.Path, cfg: TrainConfig) -> ocp.CheckpointManager:
    """A manager that keeps the last ``cfg.keep`` checkpoints under ``directory``."""
    options = ocp.CheckpointManagerOptions(max_to_keep=cfg.keep, create=True)
    return ocp.CheckpointManager(pathlib.Path(directory).resolve(), options=options)


def save(mngr: ocp.CheckpointManager, step: int, params, opt_state) -> None:
    """Save the state after ``step`` optimizer steps (blocks until written)."""
    mngr.save(step, args=ocp.args.StandardSave({"params": params, "opt_state": opt_state}), force=True)
    mngr.wait_until_finished()


def restore_latest(mngr: ocp.CheckpointManager, params, opt_state):
    """(step, params, opt_state) of the latest checkpoint, or None when there is none.

    ``params`` and ``opt_state`` are templates (structure, shapes, dtypes).

    Raises:
      CheckpointError: the checkpoint is unreadable or its tree, shapes or
        dtypes differ from the templates (e.g. written by another config).
    """
    step = mngr.latest_step()
    if step is None:
        return None
    target = {"params": params, "opt_state": opt_state}
    abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, target)
    where = pathlib.Path(mngr.directory) / str(step)
    try:
        got = mngr.restore(step, args=ocp.args.StandardRestore(abstract))
    except Exception as err:  # orbax raises many types for damaged or mismatched trees
        raise CheckpointError(
            f"checkpoint {where} is corrupt or incompatible with this config ({type(err).__name__}: "
            f"{str(err)[:300]}); delete {where.parent} or choose another --out") from err
    _check_like(got, target, where)
    return step, got["params"], got["opt_state"]


def _check_like(got, target, where) -> None:
    a, ta = jax.tree.flatten(got)
    b, tb = jax.tree.flatten(target)
    if ta != tb or any(np.shape(x) != np.shape(y) or np.asarray(x).dtype != np.asarray(y).dtype
                       for x, y in zip(a, b)):
        raise CheckpointError(f"checkpoint {where} does not match this config's parameters "
                              f"(tree, shapes or dtypes differ); delete it or choose another --out")
