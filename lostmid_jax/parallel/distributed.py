"""Multi-host runs: one process per host, one global mesh, results written by process 0.

    initialize_distributed()       # jax.distributed.initialize when the environment says so
    mesh = make_mesh()             # every device of every process
    host = gather_to_process0(ys)  # numpy on process 0, None elsewhere (collective: all call it)

The environment describes the job either explicitly (JAX_COORDINATOR_ADDRESS
host:port, JAX_NUM_PROCESSES, JAX_PROCESS_ID) or through a cluster manager
JAX detects itself (SLURM_NTASKS > 1, OMPI_COMM_WORLD_SIZE > 1). Anything
else is a single process and initialization is a no-op. See docs/scaling.md.
"""

from __future__ import annotations

import os

import jax
import numpy as np
from jax.experimental import multihost_utils

_ENV = ("JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES", "JAX_PROCESS_ID")


def _env_int(name: str, low: int, high: int | None = None) -> int:
    raw = os.environ[name]
    try:
        value = int(raw)
    except ValueError:
        value = low - 1
    if value < low or (high is not None and value > high):
        bound = f"in [{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be an int {bound}, got {raw!r}")
    return value


def initialize_distributed() -> bool:
    """Join the multi-process job the environment describes; returns whether one was joined.

    Must run before any other JAX call. A no-op (False) in a single process
    or when already initialized.

    Raises:
      ValueError: naming JAX_NUM_PROCESSES or JAX_PROCESS_ID when set but not
        in range, or when only some of the three explicit variables are set.
    """
    if jax.distributed.is_initialized():
        return False
    present = [k for k in _ENV if os.environ.get(k)]
    if present:
        if len(present) != len(_ENV):
            raise ValueError(f"{', '.join(sorted(set(_ENV) - set(present)))} must be set together with {present}")
        count = _env_int("JAX_NUM_PROCESSES", 1)
        pid = _env_int("JAX_PROCESS_ID", 0, count - 1)
        if count == 1:
            return False
        jax.distributed.initialize(os.environ["JAX_COORDINATOR_ADDRESS"], count, pid)
        return True
    if any(int(os.environ.get(k, "1") or 1) > 1 for k in ("SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE")):
        jax.distributed.initialize()
        return True
    return False


def is_process0() -> bool:
    """True on the process that writes results (always in a single process)."""
    return jax.process_index() == 0


def to_host(tree):
    """numpy copies of a pytree of arrays on every process; arrays spread over several processes
    are all-gathered (a collective: every process must call it for them)."""

    def one(a):
        if getattr(a, "is_fully_addressable", True):
            return np.asarray(a)
        return multihost_utils.process_allgather(a, tiled=True)

    return jax.tree.map(one, tree)


def gather_to_process0(tree):
    """numpy of ``tree`` on process 0 and None on the others (collective: every process must call it)."""
    host = to_host(tree)
    return host if is_process0() else None
