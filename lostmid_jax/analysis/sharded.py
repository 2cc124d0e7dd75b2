"""The Jacobian engine spread over a mesh: cotangent rows split along the axis "data".

Shapes: K cotangents, n devices, L' prefix length, P pathways.

    s = sq_norms(graphdef, state, x, cots, None, request=req, chunk=plan.chunk)   # numpy [K, P, L']

The K rows are padded with zero cotangents to n ceil(K / n) (a zero row gives
s = 0 and is dropped after), each device runs :func:`.cotangent_sq_norms` on
its ceil(K / n) rows in chunks of ``chunk`` (one shared forward per device),
and the rows come back in order: s equals the one-device result row by row.
Without a mesh the engine runs on one device, without shard_map.
"""

from __future__ import annotations

import functools

import jax
from jax.sharding import PartitionSpec

from ..parallel import AXIS, mesh_size, pad_rows, to_host
from .jacobian import cotangent_sq_norms
from .request import ProfileRequest


def sq_norms(graphdef, state, x, cotangents, segment_ids=None, *, request: ProfileRequest, chunk: int):
    """numpy [K, P, L'] squared VJP norms of ``request`` (its position, split, execution and mesh)."""
    kw = dict(position=request.position, split=request.split, chunk=chunk, execution=request.execution)
    if request.mesh is None:
        return to_host(cotangent_sq_norms(graphdef, state, x, cotangents, segment_ids, **kw))
    padded, count = pad_rows(cotangents, mesh_size(request.mesh))
    fn = _sharded(graphdef, request.mesh, tuple(sorted(kw.items())))
    return to_host(fn(state, x, padded, segment_ids))[:count]


@functools.lru_cache(maxsize=32)
def _sharded(graphdef, mesh, kw):
    def local(state, x, cots, seg):
        return cotangent_sq_norms(graphdef, state, x, cots, seg, **dict(kw))

    rep, rows = PartitionSpec(), PartitionSpec(AXIS)
    return jax.jit(jax.shard_map(local, mesh=mesh, in_specs=(rep, rep, rows, rep), out_specs=rows,
                                 check_vma=False))
