"""What every column of the Step-0 CSV files means: file -> column -> (meaning, unit); "" is dimensionless.

Positions j and layers are 1-based, x = j / L. A column <name>_lo / <name>_hi
is the 95% CI of <name> (lostmid_jax.stats.agreement: bootstrap over
seeds; the fitted a by the jackknife over seeds; a_l by the t interval);
empty where it is undefined (one seed). The statistics' meanings come from
the one table, :mod:`lostmid_jax.stats.columns`.
"""

from __future__ import annotations

from ...stats.columns import INTERVALS, agreement_meanings, interval_meanings, meaning, misfit_meanings
from ...analysis.measured_prior import CONTENT_SCORES

_KEYS = {
    "preset": ("nn preset name (lostmid_jax.nn.PRESETS)", ""),
    "variant": ("position-encoding variant: native, nopos, rope, rope:T (base T), learned", ""),
}
_TOTAL = "the mean total profile"
_MEASURED, _FITTED = "the theory row with the measured a_l", "the fitted-a theory row"
_W1FIT = "the theory row with the W1-minimizing constant a (a_w1)"
_ROWS = (("measured", _MEASURED), ("fitted", _FITTED), ("w1fit", _W1FIT))
_NATIVE = "the native variant's profile (paired by seed)"

_METRICS = {
    "a_fit": ("the constant a whose theory row best fits the mean total profile (least squares on log p)", ""),
    "spearman_measured": meaning("spearman", profile=_TOTAL, reference=_MEASURED),
    "wasserstein_measured": meaning("wasserstein", profile=_TOTAL, reference=_MEASURED),
    "spearman_fitted": meaning("spearman", profile=_TOTAL, reference=_FITTED),
    "wasserstein_fitted": meaning("wasserstein", profile=_TOTAL, reference=_FITTED,
                                  note="interval: jackknife-t with a refit per left-out seed"),
    "a_w1": ("the constant a whose theory row is closest in Wasserstein-1 to the mean total profile (the paper's "
             "most favourable reading of a)", ""),
    "spearman_w1fit": meaning("spearman", profile=_TOTAL, reference=_W1FIT),
    "wasserstein_w1fit": meaning("wasserstein", profile=_TOTAL, reference=_W1FIT,
                                 note="interval: jackknife-t with a refit per left-out seed"),
    **{f"spearman_rc_{kind}": meaning("spearman_rc", profile=_TOTAL, reference=what) for kind, what in _ROWS},
    "value_spearman_measured": meaning("spearman", profile="the mean value-pathway profile", reference=_MEASURED),
    "spearman_vs_native": meaning("spearman", profile="this variant's mean total profile", reference=_NATIVE),
    "log10_peak_to_trough": ("log10 of max_j p_j / min_j p_j over all j", "log10 ratio"),
    "log10_peak_to_trough_body": ("log10 peak-to-trough over j < L (the last token excluded)", "log10 ratio"),
    "theory_log10_peak_to_trough": ("log10 peak-to-trough of the measured-a_l theory row", "log10 ratio"),
    "recency_weight": ("p_L, the mass of the last position", ""),
    "primacy_mass": ("mass of the first band (x <= band)", ""),
    "middle_mass": ("mass of the middle band around x = 1/2", ""),
    "valley_x": ("x of the smallest p_j (the valley)", ""),
    "valley_c": ("exponent c of the valley power law p ~ b |j - L/2|^(-c)", ""),
    "valley_r2": ("R^2 of the valley power-law fit (log-log)", ""),
    "score_fraction_median": ("median over seeds and j < L of ||J_score|| / ||J_total||", ""),
}


COLUMNS: dict[str, dict[str, tuple[str, str]]] = {
    "profiles.csv": {
        **_KEYS,
        "pathway": ("Jacobian pathway: total, value (probabilities frozen) or score (the rest)", ""),
        "j": ("input position, 1..L", ""),
        "x": ("normalized position j / L", ""),
        "p_mean": ("mean over seeds of the normalized profile p_j = n_j / sum_i n_i", ""),
        "p_sem": ("standard error of p_mean over seeds (one seed: the probe standard error; 0 if exact)", ""),
        "norm_mean": ("mean over seeds of ||d y_L / d x_j||_F", "Jacobian Frobenius norm"),
        "norm_sem": ("standard error of norm_mean", "Jacobian Frobenius norm"),
        "theory_measured": ("theory row w_j with the measured a_l (sums to 1)", ""),
        "theory_fitted": ("theory row w_j with the fitted constant a (sums to 1)", ""),
        "theory_w1fit": ("theory row w_j with the W1-minimizing constant a_w1 (sums to 1)", ""),
    },
    "metrics.csv": {
        **_KEYS,
        "method": ("Jacobian estimator: exact, randomized or one-pass", ""),
        "probes": ("Gaussian probes of the randomized estimator", ""),
        **interval_meanings({"a_mean": ("mean over layers and seeds of the measured a_l", "")},
                            "95% t interval (over seeds)", cite=True),
        "seeds": ("seeds S (model init and input)", ""),
        "length": ("context length L", "positions"),
        "depth": ("number of layers H", "layers"),
        **interval_meanings(_METRICS, cite=True),
        **{f"wasserstein_bc_{kind}": meaning("wasserstein_bc", profile=_TOTAL, reference=what) for kind, what in _ROWS},
        **interval_meanings({"wasserstein_vs_native": meaning("wasserstein", profile="this variant's mean profile",
                                                             reference=_NATIVE)}, INTERVALS["wasserstein"]),
        **interval_meanings({"ceiling": meaning("ceiling", profile=_TOTAL, note="raw positions")}, INTERVALS["ceiling"]),
        **{column: text for ref, what in (*_ROWS, ("native", _NATIVE))
           for column, text in misfit_meanings(profile=_TOTAL, reference=what, suffix=f"_{ref}").items()},
    },
    "timings.csv": {
        **_KEYS,
        "seeds": ("seeds S measured", ""),
        "seconds": ("measurement time summed over the seeds (wall clock: differs from run to run, so it is kept "
                    "out of the result tables)", "s"),
        "compile_seconds": ("part of seconds spent tracing, lowering and compiling XLA programs (or loading them "
                            "from the persistent cache), from JAX's monitoring events", "s"),
        "device_seconds": ("part of seconds inside the jitted computations (Jacobian profiles, a_l, attention "
                           "capture) run until their results are on the host, less their compilation", "s"),
        "host_seconds": ("the rest of seconds: building the models and inputs, host-side conversions and "
                         "dispatch", "s"),
        "compiles": ("XLA programs compiled (or loaded from the persistent cache) while the seeds were measured; "
                     "0 for a seed after the first: nothing recompiles per seed", ""),
        "summary_seconds": ("host time of the summary after the measurement: theory rows, fits, bootstrap "
                            "intervals, comparison with the native variant", "s"),
    },
    "agreement.csv": {
        **_KEYS,
        "pathway": ("Jacobian pathway compared: total or value", ""),
        "reference": ("what the profile is compared with: theory_measured, theory_fitted, theory_w1fit, or native "
                      "(the native variant's profile, paired by seed)", ""),
        "bins": ("number of equal bins of x compared (= length for raw positions)", ""),
        "binned": ("True when positions were summed into bins", ""),
        "rows": ("seeds S in the ensemble", ""),
        **agreement_meanings(cite=True),
        "reliability": meaning("reliability"),
        **misfit_meanings(note="total pathway"),
    },
    "nulls.csv": {
        **_KEYS,
        "reference": ("null reference: 'ramp L..1' (a plain decreasing sequence) or 'theory a=A' (the theory row "
                      "of constant a = A)", ""),
        "spearman": meaning("spearman", profile=_TOTAL, reference="the null reference"),
        "wasserstein": meaning("wasserstein", profile=_TOTAL, reference="the null reference"),
        "spearman_rc": meaning("spearman_rc", profile=_TOTAL, reference="the null reference"),
        "wasserstein_bc": meaning("wasserstein_bc", profile=_TOTAL, reference="the null reference"),
    },
    "alphas.csv": {
        **_KEYS,
        "layer": ("layer l, 1..H", ""),
        "a_mean": ("measured a_l = E||attn|| / (||resid|| + ||attn||), mean over seeds", ""),
        "a_sem": ("standard error of a_mean over seeds", ""),
        "a_lo": ("lower end of the 95% t interval of a_mean over seeds", ""),
        "a_hi": ("upper end of the 95% t interval of a_mean over seeds", ""),
    },
    "attention.csv": {
        **_KEYS,
        "layer": ("layer, 1..H (first, middle and last)", ""),
        "head": ("query head, 1..3", ""),
        "i": ("query position, 1..heat_length", ""),
        "j": ("key position, 1..i (the causal part)", ""),
        "prob": ("attention probability A_ij of seed 0 at initialization", ""),
    },
    "content_scores.csv": {  # written with --content-prior only
        **_KEYS,
        **CONTENT_SCORES,
    },
}
