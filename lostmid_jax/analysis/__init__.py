"""What we measure on a model: Jacobian influence profiles and their comparison with theory.

Shapes: L positions, D width, H depth.

    prof = influence_profile(model, x)            # ||d y_L / d x_j||_F, j = 1..L
    split = pathway_profiles(model, x)            # total / value / score pathways
    a_l = attention_strength(model, x)            # [H] effective attention strength
    metrics.spearman(prof.norms, theory_row)      # comparison metrics
"""

from . import metrics
from .estimators import InfluenceProfile
from .profile import PathwayProfiles, influence_profile, pathway_profiles
from .strength import attention_probs, attention_strength
from .theory_fit import fit_constant_alpha, theory_row

__all__ = [
    "InfluenceProfile", "PathwayProfiles", "attention_probs", "attention_strength", "fit_constant_alpha",
    "influence_profile", "metrics", "pathway_profiles", "theory_row",
]
