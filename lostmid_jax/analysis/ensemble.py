"""Profiles of many models of one architecture at once: work items (seeds) spread over a mesh.

Shapes: E items, K cotangents, P pathways, L positions.

    def build(seed):                                   # traceable: one item -> (model, x [L, D], probe key)
        model = Decoder(cfg, rngs=nnx.Rngs(jax.random.key(seed)))
        return model, jax.random.normal(jax.random.fold_in(jax.random.key(1), seed), (L, cfg.width)), None
    profs = mapped_profiles(build, jnp.arange(8), split=True, mesh=make_mesh(4))   # profs[e][p]

Every item must give the same graph and shapes. The arguments become one
:class:`.ProfileRequest` and one memory plan (:func:`.memory.plan_request`,
the same code as :func:`.influence_profile`); each device then runs its items
one after another (:func:`..parallel.map_over_mesh`), each the engine's D
(exact) or K (randomized) cotangents in chunks sharing one forward, so a
device holds one profile's memory at a time; the profile of item e equals
:func:`.pathway_profiles` (or :func:`.influence_profile`) of build(e).
"""

from __future__ import annotations

import jax
from flax import nnx

from ..parallel import map_over_mesh, mesh_size, to_host
from ..validation import check_int
from . import _validate
from .estimators import InfluenceProfile, cotangents, estimates
from .jacobian import cotangent_sq_norms
from .memory import plan_request
from .request import ProfileRequest


def mapped_profiles(build, items, *, method: str = "exact", probes: int = 16, position: int = -1,
                    split: bool = False, chunk: int | None = None, mesh=None,
                    max_memory_gb: float | None = None, batch: int | str = 1) -> list[list[InfluenceProfile]]:
    """[E] lists of profiles (total; or total, value, score) of the models and inputs build(items[e]).

    Args:
      build: item -> (Decoder, x [L, D], probe key or None), traceable.
      items: pytree with a leading axis E (e.g. int seeds [E]).
      method: "exact", "randomized" (needs a key from build) or "one-pass".
      probes, position, chunk, max_memory_gb: as in :func:`.influence_profile`.
      split: also the value and score pathways.
      mesh: Mesh with axis "data" (None: one device).
      batch: items each device computes at once, as one vmapped computation (1: one after another);
        "auto": as many as :func:`items_at_once` allows.

    Raises:
      ValueError: naming ``method``, ``probes``, ``position``, ``chunk``, ``mesh``, ``max_memory_gb``
        or ``key`` (randomized without a key from build).
    """
    first = jax.tree.map(lambda a: a[0], items)
    model, x, _ = nnx.eval_shape(lambda: build(first))
    cfg = model.cfg
    request = ProfileRequest(length=_validate.check_input(x, cfg.width).shape[0], method=method, probes=probes,
                             position=position, chunk=chunk, split=split, mesh=mesh, max_memory_gb=max_memory_gb)
    if request.method == "jacrev":
        raise ValueError("method must be 'exact', 'randomized' or 'one-pass' for mapped_profiles, got 'jacrev'")
    plan = plan_request(request, cfg, nnx.state(model), rows_split=False)
    prefix = request.prefix(cfg)
    count = jax.tree.leaves(items)[0].shape[0]
    batch = items_at_once(plan, count, mesh) if batch == "auto" else check_int("batch", batch, 1)

    def one(item):
        model, x, key = build(item)
        graphdef, state = nnx.split(model)
        xp = x[:prefix].astype(cfg.compute_dtype)
        cots = cotangents(request.method, cfg.width, xp.dtype, probes=request.probes, key=key)
        return cotangent_sq_norms(graphdef, state, xp, cots, None, position=request.position, split=request.split,
                                  chunk=plan.chunk, execution=request.execution)

    s = to_host(map_over_mesh(one, items, request.mesh, batch=batch))  # [E, K, P, L']
    return [estimates(request, se, plan) for se in s]


BATCH_MEMORY_SHARE = 0.5
"""Share of an accelerator's free memory that items computed at once may fill (by the plan's estimate)."""


def items_at_once(plan, count: int, mesh=None) -> int:
    """Items (seeds) a device computes at once in :func:`mapped_profiles` with ``batch="auto"``.

    1 on CPU (a few cores gain nothing from a batch, and each item then rounds as the one-item path does);
    on an accelerator the most of its ceil(E / n) items whose memory, ``plan.estimate_bytes`` each
    (:mod:`.memory`: weights, activations, one chunk of cotangents), fits BATCH_MEMORY_SHARE of the
    fullest device's free memory (bytes_limit - bytes_in_use of jax's memory_stats; 1 where it reports none).
    """
    devices = jax.devices()[:1] if mesh is None else list(mesh.devices.flat)
    local = -(-count // mesh_size(mesh))
    if devices[0].platform == "cpu" or local < 2:
        return 1
    free = []
    for dev in devices:
        stats = dev.memory_stats() or {}
        if "bytes_limit" in stats:
            free.append(stats["bytes_limit"] - stats.get("bytes_in_use", 0))
    if not free:
        return 1
    return int(max(1, min(local, BATCH_MEMORY_SHARE * min(free) // max(plan.estimate_bytes, 1))))
