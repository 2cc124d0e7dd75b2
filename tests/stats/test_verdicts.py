"""The verdict rules (lostmid_jax/stats/verdicts.py): each claim on its own number, the shape on its own line."""

import math

import pytest
from scipy import stats

from lostmid_jax.stats.coverage import caveat
from lostmid_jax.stats.misfit import Misfit
from lostmid_jax.stats.verdicts import (INCONCLUSIVE, REFUTED, REPRODUCED, claim_text, decide, decide_shape,
                                        rows_needed)

SPEARMAN = dict(threshold=0.99, higher_is_better=True)
W1 = dict(threshold=0.02, higher_is_better=False)


def test_a_number_is_judged_on_its_interval_alone():
    # toy-deep's case: the W1 of the fitted row meets the claim while the shape test rejects; the number's
    # verdict does not know about the shape test (there is no argument through which it could)
    assert decide(0.0066, (0.0050, 0.0083), rows=8, **W1).outcome == REPRODUCED
    with pytest.raises(TypeError):
        decide(0.0066, (0.0050, 0.0083), rows=8, misfit_p=1e-9, **W1)
    with pytest.raises(TypeError):
        decide(0.95, (0.93, 0.97), rows=8, ceiling=0.96, **SPEARMAN)
    assert decide(0.30, (0.25, 0.35), rows=8, **SPEARMAN).outcome == REFUTED


def test_the_threshold_is_used_as_stated():
    # 0.021 no longer "rounds to 0.02": the whole interval must lie at or below 0.02
    assert decide(0.0205, (0.0201, 0.0209), rows=8, **W1).outcome == REFUTED
    assert decide(0.0195, (0.0191, 0.0200), rows=8, **W1).outcome == REPRODUCED
    assert decide(0.9870, (0.9860, 0.9880), rows=8, **SPEARMAN).outcome == REFUTED
    assert claim_text(**SPEARMAN) == ">= 0.99" and claim_text(**W1) == "<= 0.02"
    assert claim_text(band=(1.5, 2.5)) == "in [1.5, 2.5]"


def test_clipped_interval_from_few_seeds_is_inconclusive():
    v = decide(0.978, (0.9659, 1.0), rows=4, **SPEARMAN)
    assert v.outcome == INCONCLUSIVE and v.rows_needed is not None and v.rows_needed > 4
    assert decide(0.995, (0.992, 1.0), rows=2, **SPEARMAN).outcome == INCONCLUSIVE  # below MIN_ROWS


def test_interval_rule_both_sides_and_short_reasons():
    assert decide(0.015, (0.012, 0.019), rows=8, **W1).outcome == REPRODUCED
    assert decide(0.055, (0.04, 0.07), rows=8, **W1).outcome == REFUTED
    v = decide(0.025, (0.015, 0.035), rows=8, **W1)
    assert v.outcome == INCONCLUSIVE and v.reason == "interval straddles 0.02"
    assert "straddles the claim's edge" in v.details and "power calculation" in v.details
    assert len(str(v)) < 60  # the short form a claim line shows


def test_rows_needed_is_a_power_calculation():
    """S' gives the interval probability POWER of excluding the threshold when the point is the truth: with the
    standard error at S' the one-sided z-test at 0.975 reaches 0.8 power (checked with the normal law)."""
    value, ci, thr, rows = 0.03, (0.02, 0.04), 0.025, 8
    need = rows_needed(value, ci, thr, rows)
    se = 0.01 / stats.t.ppf(0.975, rows - 1)
    se_need = se * math.sqrt(rows / need)
    power = stats.norm.sf(stats.norm.ppf(0.975) - (value - thr) / se_need)
    assert 0.8 <= power < 0.8 + 0.05  # the smallest S' that reaches 0.8
    power_before = stats.norm.sf(stats.norm.ppf(0.975) - (value - thr) / (se * math.sqrt(rows / (need - 1))))
    assert power_before < 0.8 or need == rows + 1
    assert rows_needed(0.025, (0.02, 0.03), 0.025, 8) is None
    assert rows_needed(0.03, (math.nan, 0.04), 0.025, 8) is None


def test_null_reference_that_meets_the_claim_is_named():
    v = decide(0.998, (0.997, 0.999), rows=8, nulls={"ramp L..1": 0.996}, **SPEARMAN)
    assert v.outcome == REPRODUCED and not v.discriminates
    assert "a null meets it too" in v.reason and "cannot tell the theories apart" in v.details
    v = decide(0.998, (0.997, 0.999), rows=8, nulls={"theory a=0.9": 0.7}, **SPEARMAN)
    assert v.discriminates and "null" not in v.reason


def test_not_measured_and_bad_arguments():
    assert decide(math.nan, (math.nan, math.nan), rows=8, **SPEARMAN).outcome == INCONCLUSIVE
    assert decide(0.5, (math.nan, math.nan), rows=8, **SPEARMAN).outcome == INCONCLUSIVE
    with pytest.raises(ValueError, match="rows"):
        decide(0.5, (0.4, 0.6), rows=-1, **SPEARMAN)
    with pytest.raises(ValueError, match="min_rows"):
        decide(0.5, (0.4, 0.6), rows=8, min_rows=1, **SPEARMAN)
    with pytest.raises(ValueError, match="metric"):
        decide(0.5, (0.4, 0.6), rows=8, metric="W1", **SPEARMAN)


def test_two_sided_band_claim():
    band = dict(band=(1.5, 2.5))
    assert decide(2.0, (1.8, 2.2), rows=8, **band).outcome == REPRODUCED
    assert decide(1.0, (0.9, 1.1), rows=8, **band).outcome == REFUTED
    assert decide(3.0, (2.8, 3.3), rows=8, **band).outcome == REFUTED
    v = decide(1.6, (1.4, 1.8), rows=8, **band)
    assert v.outcome == INCONCLUSIVE and v.reason == "interval straddles 1.5" and v.rows_needed > 8
    with pytest.raises(ValueError, match="exactly one of threshold and band"):
        decide(1.0, (0.9, 1.1), rows=8, threshold=1.0, band=(0, 2))
    with pytest.raises(ValueError, match="band"):
        decide(1.0, (0.9, 1.1), rows=8, band=(2, 1))


def test_coverage_caveat_goes_to_the_details():
    """The verdict names the measured coverage of a W1 interval that covers short of 0.93 (stats.coverage),
    in its details; the outcome and the short reason are unchanged."""
    plain = decide(0.015, (0.012, 0.019), rows=4, **W1)
    v = decide(0.015, (0.012, 0.019), rows=4, metric="wasserstein", **W1)
    assert v.outcome == plain.outcome == REPRODUCED and v.reason == plain.reason
    note = caveat("wasserstein", 4, value=0.015)
    assert (note in v.details) if note else ("coverage" not in v.details)
    assert "coverage" not in plain.details


def _misfit(p, min_p=2 / 2 ** 8):
    return Misfit(chi2=20.0, dof=14, p_value=p, min_p=min_p, bins=16)


def test_shape_is_a_claim_of_its_own():
    assert decide_shape(_misfit(0.004)).outcome == REFUTED
    assert "differs beyond noise" in decide_shape(_misfit(0.004)).reason
    nothing = decide_shape(_misfit(0.3))  # not rejecting is not evidence of a fit: never REPRODUCED
    assert nothing.outcome == INCONCLUSIVE and nothing.reason == "no misfit detected, p = 0.3"
    few = decide_shape(_misfit(0.125, min_p=0.125))  # 4 seeds cannot give p < 0.05
    assert few.outcome == INCONCLUSIVE and "0.125" in few.reason
    assert decide_shape(None).outcome == INCONCLUSIVE
    assert decide_shape(Misfit(math.nan, 0, math.nan)).outcome == INCONCLUSIVE
    with pytest.raises(ValueError, match="alpha"):
        decide_shape(_misfit(0.3), alpha=1.5)
