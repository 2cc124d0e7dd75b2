"""What every CSV column of the counterfactual sweep means (COLUMNS)."""

from __future__ import annotations

_SUMMARY_COLUMNS = {
    "length": ("context length L", "tokens"),
    "recency_weight": ("influence weight of the last token, w_L (the recency delta)", ""),
    "log10_recency_weight": ("log10 of recency_weight", "log10"),
    "primacy_mass": ("influence mass at x <= band", ""),
    "middle_mass": ("influence mass at band < x < 1 - band", ""),
    "late_mass": ("influence mass at 1 - band <= x < 1 (last token excluded)", ""),
    "middle_x": ("x = j/L nearest 1/2, where the middle density is read", ""),
    "log10_middle_density": ("log10 of the influence density L w_j at middle_x (-inf where w_j = 0)", "log10"),
    "valley_x": ("x = j/L of the smallest weight", ""),
    "log10_valley_density": ("log10 of the density at valley_x (-inf where it is 0)", "log10"),
    "log10_peak_to_trough": ("log10 of max_j w_j / min_j w_j (inf if an entry is 0)", "log10"),
}

COLUMNS = {
    "results.csv": {
        "prior": ("prior spec (lostmid_jax.masks.text), e.g. causal, window:256, alibi:16", ""),
        "label": ("readable name of the prior", ""),
        "family": ("decoder families whose Step-0 prior this is, '; '-separated; empty for none", ""),
        "depth": ("depth H", "layers"),
        "schedule": ("attention weights a_l of the layers, e.g. a=0.5", ""),
        **_SUMMARY_COLUMNS,
        "dead_fraction": ("share of positions j < L in the dead zone, L w_j < dead_below (docs/theory.md §4)", ""),
        "zero_fraction": ("share of positions j < L with w_j = 0 exactly (no attention path to the last token)", ""),
        "dead_x_min": ("smallest x = j/L in the dead zone; empty when there is none", ""),
        "dead_x_max": ("largest x = j/L in the dead zone; empty when there is none", ""),
        "dead_x_mean": ("mean x = j/L of the dead zone; empty when there is none", ""),
        "log10_min_density": ("log10 of min over j < L of L w_j (-inf if one is 0)", "log10"),
    },
    "profiles.csv": {
        "prior": ("prior spec, as in results.csv", ""),
        "label": ("readable name of the prior", ""),
        "depth": ("depth H", "layers"),
        "length": ("context length L", "tokens"),
        "j": ("input position, 1..L (every k-th position and j = L, at most ~512 per row)", "position"),
        "x": ("normalized position j/L", ""),
        "log10_density": ("log10 of L w_j, the influence density (-inf where w_j = 0; j = L: the last token)", "log10"),
    },
}
"""CSV file -> column -> (meaning, unit) of everything this experiment writes."""
