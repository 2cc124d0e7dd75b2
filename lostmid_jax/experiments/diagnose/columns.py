"""What every column of the diagnosis' CSV files means: file -> column -> (meaning, unit); "" is dimensionless.

Passages p are 1-based (1..k), positions j and layers 1-based, x = j / T. A
column <name>_lo / <name>_hi is the 95% interval of <name>: Wilson for rates,
t over examples for means, the expanded basic bootstrap over examples for the
paired gaps, alpha and the depth ratios (lostmid_jax.stats).
"""

from __future__ import annotations

from ...stats.columns import interval_meanings

_RATE = "share of the E examples"
COLUMNS = {
    "accuracy.csv": {
        "length": ("T, the prompt length of this position test", "tokens"),
        "extrapolated": ("1 when this length's forward (prompt and answer) reads beyond the checkpoint's trained "
                         "context (measured with --allow-extrapolation), else 0", ""),
        "passage": ("p, the passage holding the fact (1 = first)", ""),
        "fact_x": ("mean relative position of the fact's middle in the prompt, over examples", "fraction of T"),
        **interval_meanings({
            "accuracy": ("multiple-choice accuracy: the right answer has the highest log-probability of the C "
                         "candidates (ties count as wrong)", _RATE),
            "exact": ("greedy exact match: temperature-0 decoding writes the right answer's tokens", _RATE)},
            "95% Wilson interval"),
        **interval_meanings({"logprob": ("mean log-probability of the right answer (sum over its tokens)", "nats")},
                            "95% t interval (over examples)"),
        "examples": ("E, examples scored", ""),
        "chance": ("chance accuracy 1 / C", ""),
    },
    "baselines.csv": {
        "condition": ("'closed-book' (the question alone, no passage) or 'oracle' (the fact, or the gold document, "
                      "alone, then the question)", ""),
        **interval_meanings({
            "accuracy": ("multiple-choice accuracy on the same examples and candidates as the position test", _RATE),
            "exact": ("greedy exact match", _RATE)}, "95% Wilson interval"),
        **interval_meanings({"logprob": ("mean log-probability of the right answer", "nats")},
                            "95% t interval (over examples)"),
        "examples": ("E, examples scored", ""),
        "chance": ("chance accuracy 1 / C", ""),
        "prompt_tokens": ("mean prompt length", "tokens"),
    },
    "examples.csv": {
        "length": ("T, the prompt length", "tokens"),
        "example": ("example index e (0-based)", ""),
        "passage": ("p, the passage holding the fact", ""),
        "logprob": ("log-probability of the right answer", "nats"),
        "rank": ("rank of the right answer among the C candidates (1 = best; ties count against it)", ""),
        "correct": ("1 if rank = 1, else 0", ""),
        "exact": ("1 if greedy decoding writes the right answer, else 0", ""),
    },
    "gaps.csv": {
        "length": ("T, the prompt length", "tokens"),
        "extrapolated": ("1 when this length's forward (prompt and answer) reads beyond the checkpoint's trained "
                         "context (measured with --allow-extrapolation), else 0", ""),
        "measure": ("'accuracy' (multiple choice) or 'logprob' (of the right answer)", ""),
        "middle": ("the middle passage(s), e.g. '3' or '2 3'; the ends are 1 and k", ""),
        "mean": ("mean over examples of (mean over middle passages - mean over the two ends), paired per example",
                 "share of examples (accuracy) or nats (logprob)"),
        "lo": ("lower end of the 95% paired bootstrap interval of mean", "as mean"),
        "hi": ("upper end of the 95% paired bootstrap interval of mean", "as mean"),
        "units": ("examples paired", ""),
        "verdict": ("'middle worse', 'middle better' or 'no difference beyond noise' (interval against 0)", ""),
    },
    "attention.csv": {
        "layer": ("layer l, 1-based", ""),
        "j": ("key position, 1-based (1..T)", ""),
        "x": ("j / T (T the first of lengths)", ""),
        "raw": ("(1/T) sum_i A_ij, the attention key j receives averaged over all T query rows (zeros above the "
                "diagonal included), mean over heads and prompts", ""),
        "vs_uniform": ("sum_i A_ij / sum_{i sees j} 1/|S_i|: received over what uniform attention over the mask "
                       "would give (1 = uniform), mean over heads and prompts", ""),
        "vs_uniform_lo": ("lower end of the 95% t interval of vs_uniform over prompts (empty for one prompt)", ""),
        "vs_uniform_hi": ("upper end of the 95% t interval of vs_uniform over prompts", ""),
        "vs_uniform_head_min": ("smallest head's vs_uniform (mean over prompts)", ""),
        "vs_uniform_head_max": ("largest head's vs_uniform (mean over prompts)", ""),
    },
    "heatmap.csv": {
        "query_bin": ("query bin (0-based; position i falls in bin floor(i B / T), 0-based i)", ""),
        "key_bin": ("key bin, the same way", ""),
        "query_x": ("the query bin's centre, as a fraction of T", ""),
        "key_x": ("the key bin's centre, as a fraction of T", ""),
        "ratio": ("|S_i| A_ij of the last layer (mean over heads and prompts) averaged over the bin's allowed "
                  "pairs (i A_ij under the causal mask; 1 = uniform); empty where no pair is allowed", ""),
    },
    "profiles.csv": {
        "j": ("input position, 1-based (1..T; T is the last prompt token, whose output predicts the answer)", ""),
        "x": ("j / T", ""),
        "trained": ("normalized influence p_j = n_j / sum_i n_i of the trained model, n_j = ||d y_T / d x_j||_F, "
                    "mean over the S prompts", ""),
        "trained_sem": ("standard error of trained over the S prompts", ""),
        "step0": ("the same for a random init of the same architecture (init seed s on prompt s)", ""),
        "step0_sem": ("standard error of step0 over the S prompts", ""),
        "prior": ("the Step-0 theory row w_j of the architecture's prior (analysis.prior_for) with the inits' "
                  "measured a_l", ""),
    },
    "valley.csv": {
        "profile": ("'attention' (last layer's vs_uniform, head mean, one row per prompt), 'trained' / 'step0' "
                    "(influence profiles) or 'prior' (the theory row)", ""),
        "alpha": ("alpha of the fit p ~ beta |j - T/2|^(-alpha) over 0.05 <= |x - 1/2| <= 0.45, last token out "
                  "(alpha < 0: a valley, rising away from the middle)", ""),
        "alpha_lo": ("lower end of the 95% bootstrap interval of alpha over rows (empty for one row)", ""),
        "alpha_hi": ("upper end of the 95% bootstrap interval of alpha over rows", ""),
        "r2": ("R^2 of the two-sided log-log fit", ""),
        "alpha_left": ("alpha fitted on the left arm alone (j < T/2)", ""),
        "alpha_right": ("alpha fitted on the right arm alone (j > T/2)", ""),
        "describes": ("1 if the power law describes the profile by stats.valley's rule (arms bend the same way, "
                      "agree within 50%, R^2 >= 0.8), else 0", ""),
        "reason": ("why not (the rule's first failed condition); empty when it does", ""),
        "rows": ("rows (prompts) averaged", ""),
        "valley_depth": ("V = ln(mean p over the end bands / mean p over the central band |x - 1/2| < band)",
                         "nats"),
        "primacy_mass": ("share of the profile in x <= band", ""),
        "middle_mass": ("share of the profile in band < x < 1 - band", ""),
        "recency_weight": ("the last position's share", ""),
        "valley_x": ("x of the profile's smallest entry", ""),
    },
    "birth.csv": {
        "reference": ("'step0' (the measured Step-0 profiles, paired by prompt) or 'prior' (the theory row)", ""),
        "depth_reference": ("valley depth V of the reference's mean profile", "nats"),
        "depth_trained": ("valley depth V of the trained model's mean profile", "nats"),
        "ratio": ("depth_reference / depth_trained: how much of the trained model's valley the architecture "
                  "had at birth (1: all of it; < 1: training deepened it; > 1: training flattened it); empty "
                  "when the trained profile has no valley (V <= 0)", ""),
        "ratio_lo": ("lower end of the 95% bootstrap interval of ratio over prompts", ""),
        "ratio_hi": ("upper end of the 95% bootstrap interval of ratio over prompts", ""),
        "rows": ("prompts (S)", ""),
    },
}
