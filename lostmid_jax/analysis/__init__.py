"""What we measure on a model: Jacobian influence profiles and their comparison with theory.

Shapes: L positions, D width, H depth, K cotangents, P pathways.

    prof = influence_profile(model, x)            # ||d y_L / d x_j||_F, j = 1..L
    split = pathway_profiles(model, x)            # total / value / score pathways
    prof = influence_profile(model, x, mesh=parallel.make_mesh(8), max_memory_gb=4)   # prof.plan
    per_seed = mapped_profiles(build, seeds, mesh=mesh)   # many inits of one graph over a mesh
    a_l = attention_strength(model, x)            # [H] effective attention strength
    raw, ratio = attention_received(model, x)     # [H, N, L] attention each key receives, raw and vs uniform
    prior = prior_for(model.cfg, L)               # the model's Step-0 theory prior
    profile_metrics.spearman(prof.norms, theory_row)   # comparison metrics (lostmid_jax.stats)

The Jacobian engine runs one way: a validated ProfileRequest (request.py) ->
a MemoryPlan (memory.py) -> the engine (squared cotangent norms, shard_map
over a mesh; jacobian.py, sharded.py) -> the estimate (estimators.py).
influence_profile, pathway_profiles (profile.py) and mapped_profiles
(ensemble.py) all take it; run_profile is the path itself. The model runs
under the request's nn.Execution (probabilities kept, blocked attention,
remat as asked), passed at call time.
"""

from __future__ import annotations

from .._lazy import lazy_exports

_EXPORTS = {
    "Agreement": "..stats.agreement",
    "agreement": "..stats.agreement",
    "mapped_profiles": ".ensemble",
    "InfluenceProfile": ".estimators",
    "MemoryPlan": ".memory",
    "prior_for": ".prior_bridge",
    "PathwayProfiles": ".profile",
    "influence_profile": ".profile",
    "pathway_profiles": ".profile",
    "run_profile": ".profile",
    "PATHWAYS": ".request",
    "ProfileRequest": ".request",
    "attention_probs": ".strength",
    "attention_received": ".received",
    "attention_strength": ".strength",
    "attention_strength_under": ".strength",
    "fit_constant_alpha": ".theory_fit",
    "theory_row": ".theory_fit",
}
_SUBMODULES = ()

__all__ = [
    "Agreement",
    "agreement",
    "InfluenceProfile",
    "MemoryPlan",
    "PATHWAYS",
    "PathwayProfiles",
    "ProfileRequest",
    "attention_probs",
    "attention_received",
    "attention_strength",
    "attention_strength_under",
    "fit_constant_alpha",
    "influence_profile",
    "mapped_profiles",
    "pathway_profiles",
    "prior_for",
    "run_profile",
    "theory_row",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, _SUBMODULES)
