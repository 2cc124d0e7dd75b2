"""What every CSV column of the depth sweep means (:data:`COLUMNS`)."""

from __future__ import annotations

_SUMMARY_COLUMNS = {
    "recency_weight": ("influence weight of the last token, w_L (the recency delta)", ""),
    "log10_recency_weight": ("log10 of recency_weight (finite where the weight underflows)", "log10"),
    "primacy_mass": ("influence mass at x <= band", ""),
    "middle_mass": ("influence mass at band < x < 1 - band", ""),
    "late_mass": ("influence mass at 1 - band <= x < 1 (last token excluded)", ""),
    "middle_x": ("x where the middle density is read: 1/2 (continuum) or the j/L nearest it", ""),
    "log10_middle_density": ("log10 of the influence density at middle_x: L w_j, or rho_H(1/2) in the continuum",
                             "log10"),
    "valley_x": ("x = j/L of the smallest weight (continuum: 1, the smooth part's infimum)", ""),
    "log10_valley_density": ("log10 of the density at valley_x (-inf where it is 0)", "log10"),
    "log10_peak_to_trough": ("log10 of max_j w_j / min_j w_j over the discrete row (inf if an entry is 0); "
                             "empty in the continuum, whose peak is infinite", "log10"),
}

COLUMNS = {
    "results.csv": {
        "schedule": ("schedule family: constant, power (a_l = a0 l^-b, l = 1..H) or custom", ""),
        "label": ("schedule label, e.g. a=0.5", ""),
        "alpha": ("constant a, or a0 of the power law; empty for custom", ""),
        "b": ("power-law exponent b; empty unless schedule is power", ""),
        "depth": ("depth H", "layers"),
        "length": ("context length L; empty for the continuum limit", "tokens"),
        "continuum": ("True for the continuum limit L -> infinity", ""),
        **_SUMMARY_COLUMNS,
        "log10_factorial_law": ("log10 of the factorial law (ln 2)^(H-1)/(H-1)! (docs/theory.md §4)", "log10"),
        "log10_geometric_law": ("log10 of the geometric law (1-a)^H exp(2 sqrt(H a ln2/(1-a))); empty unless "
                                "constant 0 < a < 1 and H >= 2 (docs/theory.md §4)", "log10"),
    },
    "profiles.csv": {
        "alpha": ("constant a of the profile", ""),
        "depth": ("depth H", "layers"),
        "length": ("context length L", "tokens"),
        "j": ("input position, 1..L", "position"),
        "x": ("normalized position j/L", ""),
        "log10_density": ("log10 of L w_j, the influence density at x (j = L: the last token, whose weight "
                          "holds the recency delta)", "log10"),
    },
}
"""CSV file -> column -> (meaning, unit) of everything this experiment writes."""
