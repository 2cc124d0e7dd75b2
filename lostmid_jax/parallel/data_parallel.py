"""Data-parallel training steps: the batch split along "data", parameters and optimizer state replicated.

Shapes: B batch, n = mesh.shape["data"].

    params, opt_state, step_fn, place = data_parallel(mesh, params, opt_state, step_fn)
    params, opt_state, metrics = step_fn(params, opt_state, place(batch))

Each device holds B / n rows of every batch array (arrays whose B is not a
multiple of n are replicated instead) and a full copy of the state; XLA
inserts the all-reduce of the gradient mean, so a step computes the same
function as on one device (up to float summation order). Outputs are pinned
to the replicated sharding, so orbax writes the same checkpoints as a
one-device run and either can resume the other.
"""

from __future__ import annotations

import functools

import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from ..cpu_heaps import cpu_compiler_options

from .mesh import AXIS, check_mesh, default_mesh, mesh_size


def replicate(mesh: Mesh, tree):
    """Every leaf copied to every device of ``mesh``."""
    return jax.device_put(tree, NamedSharding(mesh, PartitionSpec()))


def shard_batch(mesh: Mesh, batch):
    """Leaves [B, ...] split along "data" when n divides B, else replicated."""
    n = mesh_size(mesh)

    def put(a):
        spec = PartitionSpec(AXIS) if a.ndim and a.shape[0] % n == 0 else PartitionSpec()
        return jax.device_put(a, NamedSharding(mesh, spec))

    return jax.tree.map(put, batch)


@functools.lru_cache(maxsize=16)
def _replicated_step(step_fn, mesh: Mesh):
    """step_fn jitted with replicated outputs: a jitted step is re-jitted from its Python function (a nested jit
    may not carry XLA options) with :func:`lostmid_jax.cpu_heaps.cpu_compiler_options`."""
    return jax.jit(getattr(step_fn, "__wrapped__", step_fn), out_shardings=NamedSharding(mesh, PartitionSpec()),
                   compiler_options=cpu_compiler_options())


def data_parallel(mesh, params, opt_state, step_fn):
    """(params, opt_state, step_fn, place) for training over ``mesh`` (default: :func:`.default_mesh`).

    Without any mesh, returns the inputs unchanged and ``place`` the identity.
    step_fn(params, opt_state, batch) -> (params, opt_state, metrics) is any
    pure step (e.g. train.step.make_train_step).
    """
    mesh = check_mesh(mesh if mesh is not None else default_mesh())
    if mesh is None:
        return params, opt_state, step_fn, lambda batch: batch
    params, opt_state = replicate(mesh, (params, opt_state))
    return params, opt_state, _replicated_step(step_fn, mesh), functools.partial(shard_batch, mesh)
