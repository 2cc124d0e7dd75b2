"""The Jacobian engine spread over a mesh: cotangent rows split along the axis "data".

Shapes: K cotangents, n devices, L' prefix length, P pathways.

    s = sq_norms(graphdef, state, x, cots, None, position=pos, split=True, chunk=8, mesh=mesh)  # [K, P, L']

The K rows are padded with zero cotangents to n ceil(K / n) (a zero row gives
s = 0 and is dropped after), each device runs :func:`.cotangent_sq_norms` on
its ceil(K / n) rows in chunks of ``chunk`` (one shared forward per device),
and the rows come back in order: s equals the one-device result row by row.
"""

from __future__ import annotations

import dataclasses
import functools
import logging

import jax
from flax import nnx
from jax.sharding import PartitionSpec

from ..parallel import AXIS, mesh_size, pad_rows, to_host
from .jacobian import cotangent_sq_norms
from .memory import block_bytes, plan_memory

_LOG = logging.getLogger(__name__)


def sq_norms(graphdef, state, x, cotangents, segment_ids=None, *, position: int, split: bool, chunk: int,
             mesh=None):
    """numpy [K, P, L'] squared VJP norms; ``mesh`` None runs on one device without shard_map."""
    if mesh is None:
        return to_host(cotangent_sq_norms(graphdef, state, x, cotangents, segment_ids, position=position,
                                          split=split, chunk=chunk))
    padded, count = pad_rows(cotangents, mesh_size(mesh))
    fn = _sharded(graphdef, position, split, chunk, mesh)
    return to_host(fn(state, x, padded, segment_ids))[:count]


@functools.lru_cache(maxsize=32)
def _sharded(graphdef, position, split, chunk, mesh):
    def local(state, x, cots, seg):
        return cotangent_sq_norms(graphdef, state, x, cots, seg, position=position, split=split, chunk=chunk)

    rep, rows = PartitionSpec(), PartitionSpec(AXIS)
    return jax.jit(jax.shard_map(local, mesh=mesh, in_specs=(rep, rep, rows, rep), out_specs=rows,
                                 check_vma=False))


def split_for_engine(model, remat: bool | None):
    """(graphdef, state, cfg) of ``model`` for the Jacobian engine: its graph rebuilt with
    cfg.remat = ``remat`` (None: unchanged), cfg.attn_keep_probs = True (one forward
    serves every cotangent, so the attention probabilities are kept, not recomputed)
    and cfg.attn_impl = "blocked" (the fused CPU kernel would recompute them per cotangent).

    Both change only the graph, never the parameters, so the model's own state is reused.
    """
    graphdef, state = nnx.split(model)
    remat = model.cfg.remat if remat is None else bool(remat)
    if remat == model.cfg.remat and model.cfg.attn_keep_probs and model.cfg.attn_impl == "blocked":
        return graphdef, state, model.cfg
    cfg = dataclasses.replace(model.cfg, remat=remat, attn_keep_probs=True, attn_impl="blocked")
    abstract = nnx.eval_shape(lambda: type(model)(cfg, rngs=nnx.Rngs(0)))
    return nnx.graphdef(abstract), state, cfg


def planned_sq_norms(cfg, graphdef, state, x, cotangents, segment_ids=None, *, position: int, split: bool,
                     chunk: int | None, mesh=None, max_memory_gb: float | None = None):
    """(numpy [K, P, L'] squared norms, MemoryPlan): the chunk chosen by :func:`.plan_memory`, logged at INFO.

    ``cfg`` is the config ``graphdef`` was built from (its remat enters the plan).
    """
    plan = plan_memory(cfg, length=x.shape[0], count=cotangents.shape[0], split=split, remat=cfg.remat,
                       weight_bytes=block_bytes(state), mesh=mesh, chunk=chunk, max_memory_gb=max_memory_gb)
    _LOG.info("influence profile: %s", plan)
    s = sq_norms(graphdef, state, x, cotangents, segment_ids, position=position, split=split, chunk=plan.chunk,
                 mesh=mesh)
    return s, plan

