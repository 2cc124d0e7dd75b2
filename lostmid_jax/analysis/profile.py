"""Public entry points: influence_profile and pathway_profiles of a Decoder.

Shapes: L positions, D width.

    ||J_j||_F = || d y_pos / d x_j ||_F,   j = 1..L                (Chowdhury, arXiv:2603.10123, Step 0)

    prof = influence_profile(model, x)                       # exact, D reverse passes
    prof = influence_profile(model, x, method="randomized", probes=16, key=jax.random.key(0))
    prof = influence_profile(model, x, mesh=make_mesh(8), max_memory_gb=4)   # spread, bounded; see prof.plan
    split = pathway_profiles(model, x)                       # total, value, score
    profs = run_profile(model, x, ProfileRequest(length=L, split=True))      # the one way both take

Each builds a :class:`.ProfileRequest` (every argument checked once), then
:func:`run_profile`: memory plan -> engine -> estimate.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np
from flax import nnx

from . import _validate
from .estimators import InfluenceProfile, cotangents, estimates
from .jacobian import dense_jacobian
from .memory import plan_request
from .request import PATHWAYS, ProfileRequest
from .sharded import sq_norms


@dataclasses.dataclass(frozen=True, kw_only=True, eq=False)
class PathwayProfiles:
    """Total, value-pathway and score-pathway profiles from the same cotangents.

    value: attention probabilities held fixed (freeze_probs); score:
    J_total - J_value per cotangent (exact norms, not differences of norms).
    """

    total: InfluenceProfile
    value: InfluenceProfile
    score: InfluenceProfile


def run_profile(model, x, request: ProfileRequest, *, key=None, segment_ids=None) -> list[InfluenceProfile]:
    """One InfluenceProfile per pathway of ``request`` (total; or total, value, score).

    Args:
      model: an nn.Decoder (only its state is used; it is not modified).
      x: [L, D] finite input embeddings, L = request.length (cast to the
        model's compute dtype).
      request: the validated request.
      key: jax.random key or int seed, required for method "randomized".
      segment_ids: optional [L] segment ids for mask "document".
    """
    cfg = _validate.check_model(model).cfg
    x = _validate.check_input(x, cfg.width, finite=True)
    if x.shape[0] != request.length:
        raise ValueError(f"x must have shape [{request.length}, {cfg.width}] (request.length), got {x.shape}")
    x = jnp.asarray(x, dtype=cfg.compute_dtype)
    prefix = request.prefix(cfg)
    if segment_ids is not None:
        segment_ids = jnp.asarray(segment_ids)
        if segment_ids.shape != (request.length,):
            raise ValueError(f"segment_ids must have shape [{request.length}], got {segment_ids.shape}")
        segment_ids = segment_ids[:prefix]
    xp = x[:prefix]
    graphdef, state = nnx.split(model)
    if request.method == "jacrev":
        return estimates(request, _jacrev_sq_norms(graphdef, state, xp, segment_ids, request))
    plan = plan_request(request, cfg, state)  # before any cotangent exists: refuses what cannot fit
    cots = cotangents(request.method, cfg.width, xp.dtype, probes=request.probes, key=key)
    s = sq_norms(graphdef, state, xp, cots, segment_ids, request=request, chunk=plan.chunk)
    return estimates(request, s, plan)


def _jacrev_sq_norms(graphdef, state, x, seg, request) -> np.ndarray:
    """[D, P, L'] squared row norms ||e_d^T J_j||^2 of dense jax.jacrev block rows [D, L', D]."""
    jac = [np.asarray(dense_jacobian(graphdef, state, x, seg, position=request.position, freeze_probs=f,
                                     execution=request.execution), np.float64)
           for f in ((False, True) if request.split else (False,))]
    if request.split:
        jac.append(jac[0] - jac[1])
    return np.stack([np.sum(j * j, axis=2) for j in jac], axis=1)


def _request(model, x, split, **kwargs) -> ProfileRequest:
    _validate.check_model(model)
    return ProfileRequest(length=_validate.check_input(x, model.cfg.width).shape[0], split=split, **kwargs)


def influence_profile(model, x, *, method: str = "exact", probes: int = 16, position: int = -1,
                      key=None, chunk: int | None = None, segment_ids=None, mesh=None,
                      max_memory_gb: float | None = None, remat: bool | None = None) -> InfluenceProfile:
    """Influence of each input position on the output at ``position``: ||d y_pos / d x_j||_F.

    Args:
      model: an nn.Decoder (only its state is used; it is not modified).
      x: [L, D] finite input embeddings (cast to the model's compute dtype).
      method: "exact" (D reverse passes sharing one forward, batched in chunks),
        "randomized" (``probes`` Gaussian cotangents: unbiased for the squared
        norm, with standard errors), "one-pass" (the all-ones cotangent:
        biased surrogate) or "jacrev" (dense jax.jacrev, for cross-checks on
        small cases). See :mod:`.estimators` for the formulas.
      probes: K >= 1, Gaussian probes for "randomized" (ignored otherwise).
      position: output row in [-L, L), default the last token.
      key: jax.random key or int seed, required for "randomized".
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
        memory, one more forward per chunk); None means True (the default
        nn.Execution). The model runs with its attention probabilities kept
        and blocked attention, whatever it was trained with.

    Returns:
      InfluenceProfile with norms [L] (zeros after ``position`` under causal
      masks), for "randomized" the standard errors, and ``plan`` (chunk,
      devices, remat, memory estimate; also logged at INFO).

    Raises:
      ValueError: naming ``x`` (shape, NaN or inf), ``position``, ``probes``,
        ``method``, ``chunk``, ``key``, ``segment_ids``, ``mesh``,
        ``max_memory_gb`` or ``remat`` for bad input, or ``max_memory_gb``
        when one cotangent does not fit.
    """
    request = _request(model, x, False, method=method, probes=probes, position=position, chunk=chunk, mesh=mesh,
                       max_memory_gb=max_memory_gb, remat=remat)
    return run_profile(model, x, request, key=key, segment_ids=segment_ids)[0]


def pathway_profiles(model, x, *, method: str = "exact", probes: int = 16, position: int = -1,
                     key=None, chunk: int | None = None, segment_ids=None, mesh=None,
                     max_memory_gb: float | None = None, remat: bool | None = None) -> PathwayProfiles:
    """Total, value and score pathway profiles (same arguments as :func:`influence_profile`).

    J_value: the Jacobian with attention probabilities held fixed (the
    model's ``freeze_probs``); J_score = J_total - J_value, formed per
    cotangent (per dense Jacobian for "jacrev"), so all three are exact for
    "exact"/"jacrev" and unbiased for "randomized".
    """
    request = _request(model, x, True, method=method, probes=probes, position=position, chunk=chunk, mesh=mesh,
                       max_memory_gb=max_memory_gb, remat=remat)
    return PathwayProfiles(**dict(zip(PATHWAYS, run_profile(model, x, request, key=key, segment_ids=segment_ids))))
