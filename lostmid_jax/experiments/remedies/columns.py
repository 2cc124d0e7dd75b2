"""The column dictionary of `lostmid remedies`' tables (what each CSV column means, its unit)."""

from __future__ import annotations

from ...stats.columns import interval_meanings

DIFFERENCES = {name: (f"{what}: remedy minus unmodified, mean over examples", "") for name, what in (
    ("middle", "multiple-choice accuracy at the middle passage(s)"),
    ("ends", "multiple-choice accuracy at passages 1 and k"),
    ("overall", "multiple-choice accuracy over all passages"),
    ("middle_logprob", "log P(right answer) at the middle passage(s) (natural log)"),
    ("fact_attention", "attention received by the fact's ids / uniform (middle prompt; empty below 2 examples)"),
    ("fact_influence", "the fact's share of the influence profile (middle prompt; empty below 2 examples)"))}
COLUMNS = {
    "accuracy.csv": {
        "remedy": ("'none' (the unmodified model) or the remedy's spec", ""),
        "passage": ("passage p holding the fact, 1-based (1..k)", ""),
        "accuracy": ("multiple-choice accuracy (right answer ranked first)", ""),
        "accuracy_lo": ("lower end of its 95% Wilson interval", ""),
        "accuracy_hi": ("upper end of its 95% Wilson interval", ""),
        "exact": ("greedy exact match of the right answer", ""),
        "exact_lo": ("lower end of its 95% Wilson interval", ""),
        "exact_hi": ("upper end of its 95% Wilson interval", ""),
        "logprob": ("mean log P(right answer) over examples (natural log)", ""),
        "chance": ("chance accuracy 1 / C", ""),
    },
    "measurements.csv": {
        "remedy": ("'none' (the unmodified model) or the remedy's spec", ""),
        "applied": ("1 when the remedy was measured (else the row is empty and note says why: it does not apply to "
                    "this model, or it is a no-op at this length)", ""),
        "note": ("why the remedy was not measured ('' when applied)", ""),
        "length": ("T, the prompt length the model read (markers lengthen it)", "tokens"),
        "extrapolated": ("1 when the forward (prompt and answer) reads beyond the checkpoint's trained context "
                         "(measured with --allow-extrapolation), else 0", ""),
        "prior": ("the Step-0 theory prior of the (remedied) architecture at T (analysis.prior_for)", ""),
        "position_verdict": ("the position test: middle worse / middle better / no difference beyond noise", ""),
        "gap": ("paired middle-minus-ends accuracy gap, mean over examples", ""),
        "gap_lo": ("lower end of its 95% paired bootstrap interval", ""),
        "gap_hi": ("upper end of its 95% paired bootstrap interval", ""),
        "fact_attention": ("attention received by the fact's ids / uniform over the mask, mean over examples", ""),
        "fact_influence": ("the fact's share of the exact influence profile, mean (empty when not measured)", ""),
        "step0_share": ("the fact's share of the Step-0 theory row (uniform attention over the mask, a = theory_a)", ""),
        "valley_alpha": ("alpha of the power law beta |pos - L/2|^(-alpha) on the raw attention received "
                         "(negative: a valley; stats.valley)", ""),
        "valley_alpha_lo": ("lower end of its 95% bootstrap interval over examples", ""),
        "valley_alpha_hi": ("upper end of its 95% bootstrap interval over examples", ""),
        "valley_r2": ("R^2 of that log-log fit", ""),
        "valley_describes": ("1 when the power law describes the profile by stats.valley's rule, else 0", ""),
        "valley_reason": ("the rule's first failing condition ('' when it describes the profile)", ""),
    },
    "effects.csv": {
        "remedy": ("the remedy's spec", ""),
        "kind": ("rope_base, rope_scaling, markers, reorder or sinks", ""),
        "acts_on": ("'model' (same weights, changed config) or 'prompt' (same model, changed input)", ""),
        "verdict": ("helps / hurts / no difference beyond noise (the middle accuracy's interval); 'no-op at this "
                    "length' when the remedy provably changes nothing at the probe's lengths (decided from its "
                    "definition, not measured); 'not applicable' when it does not apply to this model", ""),
        **interval_meanings(DIFFERENCES, "95% paired bootstrap interval"),
        "step0_ratio": ("the Step-0 theory's predicted ratio of the fact's influence share, remedy / unmodified "
                        "(1: the theory predicts no change)", ""),
        "theory": ("what the Step-0 theory predicts for this remedy, in words", ""),
    },
    "received.csv": {
        "remedy": ("'none' or the remedy's spec", ""),
        "j": ("key position, 1-based (1..L)", ""),
        "x": ("normalized key position j/L", ""),
        "raw": ("(1/L) sum_i A_ij, mean over layers, heads and the measured prompts", ""),
        "vs_uniform": ("sum_i A_ij / sum over the queries that see j of 1/|S_i| (1 = uniform over the mask), "
                       "mean over layers, heads and prompts", ""),
    },
    "influence.csv": {
        "remedy": ("'none' or the remedy's spec", ""),
        "j": ("input position, 1-based (1..L)", ""),
        "x": ("normalized position j/L", ""),
        "share": ("n_j / sum_i n_i of the exact influence profile ||d y_L / d x_j||_F, mean over the prompts", ""),
    },
}

__all__ = ["COLUMNS", "DIFFERENCES"]
