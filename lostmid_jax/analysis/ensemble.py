"""Profiles of many models of one architecture at once: work items (seeds) spread over a mesh.

Shapes: E items, K cotangents, P pathways, L positions.

    def build(seed):                                   # traceable: one item -> (model, x [L, D], probe key)
        model = Decoder(cfg, rngs=nnx.Rngs(jax.random.key(seed)))
        return model, jax.random.normal(jax.random.fold_in(jax.random.key(1), seed), (L, cfg.width)), None
    profs = mapped_profiles(build, jnp.arange(8), split=True, mesh=make_mesh(4))   # profs[e][p]

Every item must give the same graph and shapes. Each device runs its items
one after another (:func:`..parallel.map_over_mesh`), each the engine's
D (exact) or K (randomized) cotangents in chunks sharing one forward, so a
device holds one profile's memory at a time; the profile of item e equals
:func:`.pathway_profiles` (or :func:`.influence_profile`) of build(e).
"""

from __future__ import annotations

import dataclasses

import jax
from flax import nnx

from ..parallel import check_mesh, map_over_mesh, to_host
from . import _validate
from .estimators import InfluenceProfile, cotangents, estimate
from .jacobian import cotangent_sq_norms, prefix_length
from .memory import block_bytes, plan_memory
from .sharded import split_for_engine


def mapped_profiles(build, items, *, method: str = "exact", probes: int = 16, position: int = -1,
                    split: bool = False, chunk: int | None = None, mesh=None,
                    max_memory_gb: float | None = None) -> list[list[InfluenceProfile]]:
    """[E] lists of profiles (total; or total, value, score) of the models and inputs build(items[e]).

    Args:
      build: item -> (Decoder, x [L, D], probe key or None), traceable.
      items: pytree with a leading axis E (e.g. int seeds [E]).
      method: "exact", "randomized" (needs a key from build) or "one-pass".
      probes, position, chunk, max_memory_gb: as in :func:`.influence_profile`.
      split: also the value and score pathways.
      mesh: Mesh with axis "data" (None: one device).

    Raises:
      ValueError: naming ``method``, ``probes``, ``position``, ``chunk``, ``mesh`` or ``max_memory_gb``.
    """
    method = _validate.check_method(method)
    if method == "jacrev":
        raise ValueError("method must be 'exact', 'randomized' or 'one-pass' for mapped_profiles, got 'jacrev'")
    probes = _validate.check_positive_int("probes", probes)
    chunk = None if chunk is None else _validate.check_positive_int("chunk", chunk)
    mesh, max_memory_gb = check_mesh(mesh), _validate.check_memory_gb(max_memory_gb)
    first = jax.tree.map(lambda a: a[0], items)
    model, x, _ = nnx.eval_shape(lambda: build(first))
    cfg, length = model.cfg, _validate.check_input(x, model.cfg.width).shape[0]
    pos = _validate.check_position(position, length)
    prefix = prefix_length(cfg, pos) or length
    count = {"exact": cfg.width, "randomized": probes}.get(method, 1)
    plan = plan_memory(cfg, length=prefix, count=count, split=split, remat=cfg.remat,
                       weight_bytes=block_bytes(nnx.state(model)),
                       mesh=mesh, chunk=chunk, max_memory_gb=max_memory_gb, rows_split=False)

    def one(item):
        model, x, key = build(item)
        graphdef, state, _ = split_for_engine(model, None)
        xp = x[:prefix].astype(cfg.compute_dtype)
        cots = cotangents(method, cfg.width, xp.dtype, probes=probes, key=key)
        return cotangent_sq_norms(graphdef, state, xp, cots, None, position=pos, split=split, chunk=plan.chunk)

    s = to_host(map_over_mesh(one, items, mesh))  # [E, K, P, L']
    return [[dataclasses.replace(estimate(method, pos, se[:, p], length), plan=plan) for p in range(se.shape[1])]
            for se in s]
