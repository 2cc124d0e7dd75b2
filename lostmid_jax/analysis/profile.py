"""Public entry points: influence_profile and pathway_profiles of a Decoder.

Shapes: L positions, D width.

    ||J_j||_F = || d y_pos / d x_j ||_F,   j = 1..L                (Chowdhury, arXiv:2603.10123, Step 0)

    prof = influence_profile(model, x)                       # exact, D reverse passes
    prof = influence_profile(model, x, method="randomized", probes=16, key=jax.random.key(0))
    prof = influence_profile(model, x, mesh=make_mesh(8), max_memory_gb=4)   # spread, bounded; see prof.plan
    split = pathway_profiles(model, x)                       # total, value, score
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from . import _validate
from .estimators import InfluenceProfile, cotangents, estimate
from ..parallel import check_mesh
from .jacobian import PATHWAYS, dense_jacobian, prefix_length
from .sharded import planned_sq_norms, split_for_engine


@dataclasses.dataclass(frozen=True, kw_only=True, eq=False)
class PathwayProfiles:
    """Total, value-pathway and score-pathway profiles from the same cotangents.

    value: attention probabilities held fixed (stop_gradient); score:
    J_total - J_value per cotangent (exact norms, not differences of norms).
    """

    total: InfluenceProfile
    value: InfluenceProfile
    score: InfluenceProfile


def _prepare(model, x, method, probes, position, key, chunk, segment_ids):
    cfg = model.cfg
    method = _validate.check_method(method)
    probes = _validate.check_positive_int("probes", probes)
    x = jnp.asarray(_validate.check_input(x, cfg.width), dtype=cfg.compute_dtype)
    length = x.shape[0]
    pos = _validate.check_position(position, length)
    if chunk is not None:
        chunk = _validate.check_positive_int("chunk", chunk)
    if segment_ids is not None:
        segment_ids = jnp.asarray(segment_ids)
        if segment_ids.shape != (length,):
            raise ValueError(f"segment_ids must have shape [{length}], got {segment_ids.shape}")
    if method == "randomized":
        if key is None:
            raise ValueError("key is required with method='randomized' (a jax.random key or an int seed)")
        key = jax.random.key(key) if isinstance(key, int) else key
    prefix = prefix_length(cfg, pos) or length
    x = x[:prefix]
    segment_ids = None if segment_ids is None else segment_ids[:prefix]
    return cfg, method, probes, x, length, pos, chunk, segment_ids, key


def _run(model, x, *, method, probes, position, key, chunk, segment_ids, split, mesh=None, max_memory_gb=None,
         remat=None) -> list[InfluenceProfile]:
    """One InfluenceProfile per pathway (total; or total, value, score)."""
    cfg, method, probes, xp, length, pos, chunk, seg, key = _prepare(
        model, x, method, probes, position, key, chunk, segment_ids)
    mesh, max_memory_gb = check_mesh(mesh), _validate.check_memory_gb(max_memory_gb)
    graphdef, state, cfg = split_for_engine(model, _validate.check_remat(remat))
    plan = None
    if method == "jacrev":
        s = _jacrev_sq_norms(graphdef, state, xp, seg, pos, split)
    else:
        cots = cotangents(method, cfg.width, xp.dtype, probes=probes, key=key)
        s, plan = planned_sq_norms(cfg, graphdef, state, xp, cots, seg, position=pos, split=split, chunk=chunk,
                                   mesh=mesh, max_memory_gb=max_memory_gb)
    return [dataclasses.replace(estimate(method, pos, s[:, p], length), plan=plan) for p in range(s.shape[1])]


def _jacrev_sq_norms(graphdef, state, x, seg, pos, split) -> np.ndarray:
    """[D, P, L'] squared row norms ||e_d^T J_j||^2 of dense jax.jacrev block rows [D, L', D]."""
    jac = [np.asarray(dense_jacobian(graphdef, state, x, seg, position=pos, freeze=f), np.float64)
           for f in ((False, True) if split else (False,))]
    if split:
        jac.append(jac[0] - jac[1])
    return np.stack([np.sum(j * j, axis=2) for j in jac], axis=1)


def influence_profile(model, x, *, method: str = "exact", probes: int = 16, position: int = -1,
                      key=None, chunk: int | None = None, segment_ids=None, mesh=None,
                      max_memory_gb: float | None = None, remat: bool | None = None) -> InfluenceProfile:
    """Influence of each input position on the output at ``position``: ||d y_pos / d x_j||_F.

    Args:
      model: an nn.Decoder (only its state is used; it is not modified).
      x: [L, D] input embeddings (cast to the model's compute dtype).
      method: "exact" (D reverse passes sharing one forward, batched in chunks),
        "randomized" (``probes`` Gaussian cotangents: unbiased for the squared
        norm, with standard errors), "one-pass" (the all-ones cotangent:
        biased surrogate) or "jacrev" (dense jax.jacrev, for cross-checks on
        small cases). See :mod:`.estimators` for the formulas.
      probes: K >= 1, Gaussian probes for "randomized" (ignored otherwise).
      position: output row in [-L, L), default the last token.
      key: jax.random key, required for "randomized".
      chunk: cotangents per batched backward pass on each device (default:
        as many as fit a ~2 GB budget for the batched attention backward, or
        ``max_memory_gb``; with it, an upper limit).
      segment_ids: optional [L] segment ids for mask "document".
      mesh: a jax.sharding.Mesh with an axis "data" (parallel.make_mesh(n)):
        the K cotangents are split over its n devices, ceil(K / n) each (see
        :mod:`.sharded`); the result equals the one-device one. Not used by "jacrev".
      max_memory_gb: bound on the memory in use during the call (this
        process's resident set on CPU, shared by CPU devices; per device on
        accelerators): the chunk is the largest whose estimate fits
        (:mod:`.memory`). Default: no bound.
      remat: rematerialize each block in the backward pass (less fixed
        memory, one more forward per chunk); None keeps ``model.cfg.remat``.

    Returns:
      InfluenceProfile with norms [L] (zeros after ``position`` under causal
      masks), for "randomized" the standard errors, and ``plan`` (chunk,
      devices, remat, memory estimate; also logged at INFO).

    Raises:
      ValueError: naming ``x``, ``position``, ``probes``, ``method``,
        ``chunk``, ``key``, ``segment_ids``, ``mesh``, ``max_memory_gb`` or
        ``remat`` for bad input, or ``max_memory_gb`` when one cotangent does not fit.
    """
    return _run(model, x, method=method, probes=probes, position=position, key=key, chunk=chunk,
                segment_ids=segment_ids, split=False, mesh=mesh, max_memory_gb=max_memory_gb, remat=remat)[0]


def pathway_profiles(model, x, *, method: str = "exact", probes: int = 16, position: int = -1,
                     key=None, chunk: int | None = None, segment_ids=None, mesh=None,
                     max_memory_gb: float | None = None, remat: bool | None = None) -> PathwayProfiles:
    """Total, value and score pathway profiles (same arguments as :func:`influence_profile`).

    J_value: the Jacobian with attention probabilities held fixed (the
    model's ``freeze_attention_probs``); J_score = J_total - J_value, formed
    per cotangent (per dense Jacobian for "jacrev"), so all three are exact
    for "exact"/"jacrev" and unbiased for "randomized".
    """
    out = _run(model, x, method=method, probes=probes, position=position, key=key, chunk=chunk,
               segment_ids=segment_ids, split=True, mesh=mesh, max_memory_gb=max_memory_gb, remat=remat)
    return PathwayProfiles(**dict(zip(PATHWAYS, out)))
