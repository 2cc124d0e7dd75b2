"""ProfileRequest: every argument of a Jacobian profile, validated once.

Shapes: L positions, D width, K cotangents (probes), P pathways.

    req = ProfileRequest(length=L, method="randomized", probes=16, split=True)
    profs = run_profile(model, x, req, key=jax.random.key(0))   # profile.py: request -> plan -> engine -> estimate

The one way through the engine (influence_profile, pathway_profiles and
ensemble.mapped_profiles all build one):

    ProfileRequest  ->  memory.plan_request (MemoryPlan: chunk per device)
                    ->  sharded.sq_norms / jacobian.cotangent_sq_norms (s[k, p, j], shard_map over a mesh)
                    ->  estimators.estimates (InfluenceProfile per pathway)
"""

from __future__ import annotations

import dataclasses

from ..nn import Execution, MaskSpec
from ..parallel import check_mesh
from ..validation import check_bool, check_int, check_optional_int
from . import _validate

PATHWAYS = ("total", "value", "score")


@dataclasses.dataclass(frozen=True, kw_only=True)
class ProfileRequest:
    """A validated profile request (frozen; the fields hold the resolved values).

    Attributes:
      length: L >= 1, positions of the input x.
      method: "exact" (K = D unit cotangents), "randomized" (K = ``probes``
        Gaussian cotangents), "one-pass" (the all-ones cotangent) or "jacrev"
        (dense jax.jacrev); see :mod:`.estimators`.
      probes: K >= 1 for "randomized" (ignored otherwise).
      position: output row, given in [-L, L), stored 0-based in [0, L).
      chunk: cotangents per batched backward pass on each device, >= 1, or
        None (chosen by the memory plan).
      split: also the value pathway (attention probabilities held fixed,
        freeze_probs) and the score pathway J_total - J_value: P = 3, else 1.
      mesh: a jax.sharding.Mesh with an axis "data" over which the K
        cotangents are split, or None (one device).
      max_memory_gb: bound on the memory in use during the call, or None.
      remat: rematerialize each block in the backward pass; None means True
        (the default Execution), stored as a bool.
      unroll_layers: run the layers as an unrolled loop (Execution.unroll_layers;
        same values to float rounding).
    """

    length: int
    method: str = "exact"
    probes: int = 16
    position: int = -1
    chunk: int | None = None
    split: bool = False
    mesh: object = None
    max_memory_gb: float | None = None
    remat: bool | None = None
    unroll_layers: bool = False

    def __post_init__(self):
        put = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731  (frozen)
        put("length", check_int("length", self.length, 1))
        put("method", _validate.check_method(self.method))
        put("probes", _validate.check_positive_int("probes", self.probes))
        put("position", _validate.check_position(self.position, self.length))
        put("chunk", check_optional_int("chunk", self.chunk, 1))
        put("split", check_bool("split", self.split))
        put("mesh", check_mesh(self.mesh))
        put("max_memory_gb", _validate.check_memory_gb(self.max_memory_gb))
        put("remat", _validate.check_remat(self.remat))
        put("unroll_layers", check_bool("unroll_layers", self.unroll_layers))

    @property
    def pathways(self) -> tuple[str, ...]:
        """("total",) or ("total", "value", "score")."""
        return PATHWAYS if self.split else PATHWAYS[:1]

    @property
    def execution(self) -> Execution:
        """How the engine runs the model: probabilities kept (one forward serves every cotangent),
        blocked attention (the fused kernel would recompute them per cotangent), ``remat`` as asked."""
        return Execution(remat=self.remat, keep_probs=True, attn_impl="blocked", unroll_layers=self.unroll_layers)

    def prefix(self, cfg) -> int:
        """L': inputs that can reach the output row (position + 1 under causal-type masks, else L)."""
        return MaskSpec.from_config(cfg).prefix_length(self.position) or self.length

    def count(self, width: int) -> int:
        """K, the cotangent rows: D (exact, jacrev), ``probes`` (randomized) or 1 (one-pass)."""
        return {"exact": width, "jacrev": width, "randomized": self.probes}.get(self.method, 1)
