"""What we measure on a model: Jacobian influence profiles and their comparison with theory.

Shapes: L positions, D width, H depth.

    prof = influence_profile(model, x)            # ||d y_L / d x_j||_F, j = 1..L
    split = pathway_profiles(model, x)            # total / value / score pathways
    prof = influence_profile(model, x, mesh=parallel.make_mesh(8), max_memory_gb=4)   # prof.plan
    per_seed = mapped_profiles(build, seeds, mesh=mesh)   # many inits of one graph over a mesh
    a_l = attention_strength(model, x)            # [H] effective attention strength
    metrics.spearman(prof.norms, theory_row)      # comparison metrics
"""

from . import metrics
from .ensemble import mapped_profiles
from .estimators import InfluenceProfile
from .memory import MemoryPlan
from .profile import PathwayProfiles, influence_profile, pathway_profiles
from .strength import attention_probs, attention_strength
from .theory_fit import fit_constant_alpha, theory_row

__all__ = [
    "InfluenceProfile", "MemoryPlan", "PathwayProfiles", "attention_probs", "attention_strength",
    "fit_constant_alpha", "influence_profile", "mapped_profiles", "metrics", "pathway_profiles", "theory_row",
]
