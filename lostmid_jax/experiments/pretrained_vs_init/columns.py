"""What every CSV column of the pretrained-vs-init comparison means (:data:`COLUMNS`)."""

from __future__ import annotations

from ...analysis.measured_prior import CONTENT_SCORES
from ...stats.columns import agreement_meanings

_AG = agreement_meanings(profile="the seed-mean profile")
COLUMNS = {
    "metrics.csv": {
        "model": ("'pretrained' (the checkpoint) or 'init' (a random init of its architecture)", ""),
        "method": ("influence profile method: 'exact' or 'randomized'", ""),
        "seeds": ("S, input draws (and init seeds) averaged", ""),
        "length": ("L, input positions", "tokens"),
        "depth": ("H, layers", "layers"),
        "a_mean": ("measured attention strength a_l averaged over layers and seeds", ""),
        "a_fit": ("constant a of the theory row fitted to the seed-mean profile", ""),
        "log10_peak_to_trough": ("log10 of max p_j / min p_j of the seed-mean profile", "log10"),
        "log10_peak_to_trough_body": ("the same without the last position j = L", "log10"),
        "theory_log10_peak_to_trough": ("log10 max / min of the theory row with measured a_l", "log10"),
        "recency_weight": ("p_L, the last position's share of the seed-mean profile", ""),
        "primacy_mass": ("share of the profile in x <= band", ""),
        "middle_mass": ("share of the profile in band < x < 1 - band", ""),
        "valley_x": ("x = j/L of the seed-mean profile's smallest entry", ""),
        "valley_c": ("exponent c of the fit p_j ~ b |x - 1/2|^(-c), last token left out (c < 0: a U)", ""),
        "valley_r2": ("R^2 of that log-log fit", ""),
    },
    "timings.csv": {
        "model": ("'pretrained' or 'init'", ""),
        "seconds": ("measurement time of the model's units (wall clock: differs from run to run, so it is kept "
                    "out of the result tables)", "s"),
    },
    "agreement.csv": {
        "model": ("the compared profiles: 'pretrained' or 'init' (S rows, one per seed)", ""),
        "reference": ("'theory_measured' (theory row, measured a_l), 'theory_fitted' (fitted constant a) or "
                      "'init' (the init profiles, paired by seed)", ""),
        **_AG,
        "rows": ("S, seeds compared", ""),
        "bins": ("positions compared (L: no binning)", ""),
    },
    "profiles.csv": {
        "model": ("'pretrained' or 'init'", ""),
        "j": ("input position, 1-based (1..L; L is the output token's own position)", ""),
        "x": ("normalized position j/L", ""),
        "p_mean": ("normalized influence p_j = n_j / sum_i n_i, mean over seeds", ""),
        "p_sem": ("standard error of p_mean over seeds", ""),
        "norm_mean": ("raw influence n_j = ||d y_L / d x_j||_F, mean over seeds", ""),
        "theory_measured": ("Step-0 theory row w_j with the measured a_l (docs/theory.md §2)", ""),
        "theory_fitted": ("Step-0 theory row w_j with the fitted constant a", ""),
    },
    "alphas.csv": {
        "model": ("'pretrained' or 'init'", ""),
        "layer": ("layer l, 1-based (1..H)", ""),
        "a_mean": ("measured attention strength a_l (mean over seeds)", ""),
        "a_sem": ("standard error of a_mean over seeds", ""),
    },
    "content_scores.csv": {  # written with --content-prior only
        "model": ("the model the scores were measured on: 'init' (init seed 0)", ""),
        **CONTENT_SCORES,
    },
}
