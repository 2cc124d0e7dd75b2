"""Meshes of devices with one axis "data" and the map of independent work items over it.

Shapes: E work items, n = mesh.shape["data"] devices.

    mesh = make_mesh(4)                       # the first 4 devices, axis "data"
    ys = map_over_mesh(fn, xs, mesh)          # ys[e] = fn(xs[e]), e = 0..E-1

Independent work (cotangent rows of a Jacobian profile, init seeds, sweep
points of one architecture) is split along "data": E items are padded to
n ceil(E / n), each device runs its ceil(E / n) items one after another
(jax.lax.map: memory of one item at a time), and the padding is dropped.
The same code serves n = 1 and n > 1.
"""

from __future__ import annotations

import contextlib
import functools
import numbers

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, Mesh, PartitionSpec

AXIS = "data"
_DEFAULT: list[Mesh | None] = [None]


def make_mesh(devices: int | None = None) -> Mesh:
    """A 1-D mesh over the first ``devices`` of jax.devices() (all processes' devices; default all)."""
    available = jax.devices()
    if devices is None:
        devices = len(available)
    if isinstance(devices, bool) or not isinstance(devices, numbers.Integral) or not 1 <= devices <= len(available):
        raise ValueError(f"devices must be an int in [1, {len(available)}] (the devices JAX sees), got {devices!r}")
    return Mesh(np.asarray(available[: int(devices)]), (AXIS,), axis_types=(AxisType.Auto,))


def check_mesh(mesh, name: str = "mesh") -> Mesh | None:
    """None, or ``mesh`` with every axis in Auto mode (GSPMD); ValueError unless it is a Mesh with axis "data"."""
    if mesh is None:
        return None
    if not isinstance(mesh, Mesh):
        raise ValueError(f"{name} must be a jax.sharding.Mesh with an axis named {AXIS!r} "
                         f"(e.g. lostmid_jax.parallel.make_mesh(n)) or None, got {type(mesh).__name__}")
    if AXIS not in mesh.axis_names:
        raise ValueError(f"{name} must have an axis named {AXIS!r} to spread work over, got axes {mesh.axis_names}")
    return Mesh(mesh.devices, mesh.axis_names, axis_types=(AxisType.Auto,) * len(mesh.axis_names))


def mesh_size(mesh: Mesh | None) -> int:
    """n: devices along "data" (1 without a mesh)."""
    return 1 if mesh is None else int(mesh.shape[AXIS])


@contextlib.contextmanager
def using_mesh(mesh: Mesh | None):
    """Make ``mesh`` the default of callers that take ``mesh=None`` (e.g. train.train) inside the block."""
    old, _DEFAULT[0] = _DEFAULT[0], check_mesh(mesh)
    try:
        yield _DEFAULT[0]
    finally:
        _DEFAULT[0] = old


def default_mesh() -> Mesh | None:
    """The mesh set by the innermost :func:`using_mesh`, else None."""
    return _DEFAULT[0]


def pad_rows(tree, multiple: int, *, repeat: bool = False):
    """(tree padded along axis 0 to a multiple of ``multiple``, original E): zeros, or copies of row 0."""
    count = jax.tree.leaves(tree)[0].shape[0]
    pad = -count % multiple

    def one(a):
        a = jnp.asarray(a)
        extra = jnp.repeat(a[:1], pad, axis=0) if repeat else jnp.zeros((pad, *a.shape[1:]), a.dtype)
        return jnp.concatenate([a, extra]) if pad else a

    return jax.tree.map(one, tree), count


def map_over_mesh(fn, xs, mesh: Mesh | None = None, *, batch: int | None = None):
    """ys[e] = fn(xs[e]) for the E items along axis 0 of the pytree ``xs``, spread over ``mesh``.

    fn must be traceable and give the same output shapes for every item;
    each device computes ceil(E / n) items in sequence (padding repeats
    item 0), or with ``batch`` = b > 1 b items at a time as one vmapped
    computation (jax.lax.map's batch_size). Without a mesh, one device
    computes all of them.

    Returns:
      A pytree of arrays with leading axis E (jax.Arrays sharded along "data").
    """
    mesh = check_mesh(mesh) or make_mesh(1)
    padded, count = pad_rows(xs, mesh_size(mesh), repeat=True)
    ys = _mapped(fn, mesh, batch if batch and batch > 1 else None)(padded)
    return jax.tree.map(lambda y: y[:count], ys)


@functools.lru_cache(maxsize=64)
def _mapped(fn, mesh, batch=None):
    spec = PartitionSpec(AXIS)
    return jax.jit(jax.shard_map(lambda xs: jax.lax.map(fn, xs, batch_size=batch), mesh=mesh, in_specs=spec,
                                 out_specs=spec, check_vma=False))
