"""What every CSV column of the Step-0 study means (:data:`COLUMNS`)."""

from __future__ import annotations

from ...analysis.theory_variants import VARIANTS
from ...stats.columns import INTERVALS, agreement_meanings, interval_meanings, meaning, misfit_meanings

TARGET = 0.99  # the paper's Spearman (arXiv:2603.10123)

_HELD = "the held-out mean profile"


_BINS = {"bins": ("number of points compared: equal bins of x = j/L (L for raw positions)", ""),
         "raw": ("True for raw positions (no binning)", "")}

COLUMNS = {
    "variants.csv": {
        "preset": ("nn preset", ""), "variant": ("theory variant (analysis.theory_variants)", ""),
        **_BINS, "fit_seeds": ("seeds used to fit or measure the variant (the fitting half)", ""),
        "score_seeds": ("held-out seeds scored", ""),
        **agreement_meanings(profile=_HELD, reference="the variant's theory row"),
        **interval_meanings({"rms_log": meaning("rms_log", profile=_HELD, reference="the variant's theory row")},
                            INTERVALS["rms_log"]),
        **misfit_meanings(profile=_HELD, reference="the variant's theory row",
                          note="empty with < 4 held-out seeds; runs before this column wrote misfit_chi2, the mean "
                               "squared centred residual in standard errors"),
        "within_ceiling": ("True when the Spearman's CI reaches the ceiling's CI (spearman_hi >= ceiling_lo; the "
                           "point values where a CI is missing)", ""),
        "a_fit": ("the fitted constant a (variant fitted_a; empty otherwise)", ""),
        "mlp_gram": ("for the position-wise variants: True when their MLP model is the measured Gram of the "
                     "weight-shared MLP Jacobians, False when it is the diagonal one (positions independent: the unit "
                     "was too long to store the Gram, measure.GRAM_LIMIT); empty for the other variants", ""),
    },
    "convergence.csv": {
        "preset": ("nn preset", ""), "variant": ("theory variant", ""), **_BINS,
        "seeds": ("n, the first n held-out seeds averaged", ""),
        **agreement_meanings(profile=_HELD, reference="the variant's theory row (fitted on the other half)"),
    },
    "ceiling.csv": {
        "preset": ("nn preset", ""), **_BINS, "seeds": ("n, the first n of all seeds", ""),
        **interval_meanings({"ceiling": meaning("ceiling", profile="the n-seed mean")}, INTERVALS["ceiling"]),
        "reliability": meaning("reliability", profile="the n-seed mean"),
        "seeds_for_target": ("seeds whose mean would reach a ceiling of 0.99 (Spearman-Brown projection "
                             "from this n; empty where the reliability is not positive)", ""),
    },
    "profiles.csv": {
        "preset": ("nn preset", ""), "j": ("input position, 1..L", "position"), "x": ("j/L", ""),
        "p_mean": ("mean over the held-out seeds of the normalized profile p_j = n_j / sum n", ""),
        "p_sem": ("standard error of p_mean over the held-out seeds", ""),
        **{f"theory_{v}": (f"normalized theory row of variant {v} (from the fitting half)", "") for v in VARIANTS},
    },
    "layers.csv": {
        "preset": ("nn preset (with the width for the noise grid)", ""), "width": ("model width D", ""),
        "layer": ("layer, 1..H", ""),
        "a_measured": ("measured a_l, mean over seeds", ""), "a_measured_sem": ("SEM of a_measured", ""),
        "gain_sq": ("branch gain g_l^2 = ||G_l||_F^2 / D, mean over seeds", ""), "gain_sq_sem": ("SEM of gain_sq", ""),
        "a_jacobian": ("g_l / (1 + g_l) from gain_sq", ""),
        "kl": ("mean KL(attention row || uniform over allowed keys), mean over seeds", "nats"),
        "kl_sem": ("SEM of kl", "nats"),
        "spread": ("mean relative spread std_j(i P_ij) of the attention weights, mean over seeds", ""),
        "spread_sem": ("SEM of spread", ""),
        "max_ratio": ("mean of max_j i P_ij (1 when uniform), mean over seeds", ""),
    },
    "noise.csv": {
        "preset": ("nn preset whose width is varied", ""), "width": ("model width D", ""),
        "length": ("L", "tokens"), "seeds": ("n, seeds averaged", ""),
        "rel_noise": ("per-position relative noise of the n-seed mean: median over j < L of "
                      "std_s(p_sj) / mean_s(p_sj) / sqrt(n)", ""),
        "rel_noise_lo": ("lower end of the 95% bootstrap CI (over seeds) of rel_noise", ""),
        "rel_noise_hi": ("upper end of the 95% bootstrap CI (over seeds) of rel_noise", ""),
        "kl_mean": ("KL from uniform attention, mean over layers and seeds", "nats"),
        "ceiling": meaning("ceiling", profile="the mean of all seeds at this width"),
    },
}
"""CSV file -> column -> (meaning, unit)."""
