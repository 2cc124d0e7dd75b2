"""The verdict rule (lostmid_jax/stats/verdicts.py): a gross misfit is never noise, thin data never decide."""

import math

import numpy as np
import pytest

from lostmid_jax.stats.verdicts import INCONCLUSIVE, REFUTED, REPRODUCED, decide, disattenuate, rows_needed

SPEARMAN = dict(threshold=0.985, higher_is_better=True)
W1 = dict(threshold=0.025, higher_is_better=False)


def test_gross_misfit_is_refuted_never_noise():
    # the case of issue 27: Spearman 0.30 with a ceiling of 0.98 and a decisive misfit
    v = decide(0.30, (0.25, 0.35), rows=8, ceiling=0.98, misfit_p=0.0, **SPEARMAN)
    assert v.outcome == REFUTED and "noise" not in v.outcome
    # the same without any misfit test: the disattenuated interval [0.255, 0.357] excludes 0.985
    assert decide(0.30, (0.25, 0.35), rows=8, ceiling=0.98, **SPEARMAN).outcome == REFUTED
    # a low ceiling does not excuse a Spearman far below it
    assert decide(0.30, (0.25, 0.35), rows=8, ceiling=0.90, **SPEARMAN).outcome == REFUTED


def test_misfit_overrides_a_passing_number():
    v = decide(0.018, (0.012, 0.022), rows=8, misfit_p=1e-12, **W1)
    assert v.outcome == REFUTED and "meets the claim" in v.reason


def test_clipped_interval_from_few_seeds_is_inconclusive():
    # gpt2-small with 4 seeds: [0.9659, 1.0000] reaches the bound; it neither reproduces nor refutes
    v = decide(0.978, (0.9659, 1.0), rows=4, **SPEARMAN)
    assert v.outcome == INCONCLUSIVE and v.rows_needed is not None and v.rows_needed > 4
    assert decide(0.99, (0.98, 1.0), rows=2, **SPEARMAN).outcome == INCONCLUSIVE  # below MIN_ROWS


def test_interval_rule_both_sides():
    assert decide(0.02, (0.015, 0.024), rows=8, **W1).outcome == REPRODUCED
    assert decide(0.055, (0.04, 0.07), rows=8, **W1).outcome == REFUTED
    v = decide(0.03, (0.02, 0.04), rows=8, **W1)
    assert v.outcome == INCONCLUSIVE and "straddles the claim's edge" in v.reason
    # the rows needed: half-width 0.01 against a gap of 0.005 -> 4 x as many rows
    assert v.rows_needed == 32


def test_null_reference_that_meets_the_claim_is_named():
    v = decide(0.998, (0.997, 0.999), rows=8, nulls={"decreasing L-1..1": 0.996}, **SPEARMAN)
    assert v.outcome == REPRODUCED and not v.discriminates and "cannot tell the theories apart" in v.reason
    v = decide(0.998, (0.997, 0.999), rows=8, nulls={"theory a=0.9": 0.7}, **SPEARMAN)
    assert v.discriminates


def test_not_measured_and_bad_arguments():
    assert decide(math.nan, (math.nan, math.nan), rows=8, **SPEARMAN).outcome == INCONCLUSIVE
    with pytest.raises(ValueError, match="rows"):
        decide(0.5, (0.4, 0.6), rows=-1, **SPEARMAN)
    with pytest.raises(ValueError, match="alpha"):
        decide(0.5, (0.4, 0.6), rows=8, alpha=2.0, **SPEARMAN)


def test_disattenuate_interval_bounds_every_ratio():
    rng = np.random.default_rng(0)
    for _ in range(200):
        lo, hi = np.sort(rng.uniform(-1, 1, 2))
        c_lo, c_hi = np.sort(rng.uniform(0.05, 1, 2))
        c = rng.uniform(c_lo, c_hi)
        _, (a, b) = disattenuate(0.5 * (lo + hi), (lo, hi), c, (c_lo, c_hi))
        ratios = [x / y for x in (lo, hi) for y in (c_lo, c_hi)]  # the ratio is monotone in each argument
        assert a <= min(ratios) + 1e-12 and b >= max(ratios) - 1e-12


def test_rows_needed_shrinks_the_half_width_past_the_gap():
    need = rows_needed(0.03, (0.02, 0.04), 0.025, 8)
    assert 0.01 * math.sqrt(8 / need) <= 0.005 + 1e-12
    assert rows_needed(0.025, (0.02, 0.03), 0.025, 8) is None


def test_two_sided_band_claim():
    band = dict(band=(1.5, 2.5))
    assert decide(2.0, (1.8, 2.2), rows=8, **band).outcome == REPRODUCED
    assert decide(1.0, (0.9, 1.1), rows=8, **band).outcome == REFUTED
    assert decide(3.0, (2.8, 3.3), rows=8, **band).outcome == REFUTED
    v = decide(1.6, (1.4, 1.8), rows=8, **band)
    assert v.outcome == INCONCLUSIVE and v.rows_needed == 32  # half-width 0.2 against 0.1 to the edge 1.5
    assert decide(1.6, (1.4, 1.8), rows=8, misfit_p=0.001, **band).outcome == REFUTED
    with pytest.raises(ValueError, match="exactly one of threshold and band"):
        decide(1.0, (0.9, 1.1), rows=8, threshold=1.0, band=(0, 2))
    with pytest.raises(ValueError, match="band"):
        decide(1.0, (0.9, 1.1), rows=8, band=(2, 1))


def test_coverage_caveat_where_the_interval_was_measured_to_under_cover():
    """Rule 7: the verdict names the measured coverage of the interval it keyed on where it falls below 0.93
    (stats.coverage.TABLE), and says nothing where it was measured adequate; the outcome is unchanged."""
    # W1 near its bound at S = 4: measured below 0.93 (the claim's regime W1 <= 0.025)
    plain = decide(0.02, (0.015, 0.024), rows=4, **W1)
    v = decide(0.02, (0.015, 0.024), rows=4, metric="wasserstein", **W1)
    assert v.outcome == plain.outcome == REPRODUCED
    assert "coverage: the W1 interval covered the truth in 0.92" in v.reason and "coverage" not in plain.reason
    # a W1 far from its bound at S = 8: measured adequate, no caveat
    far = decide(0.2, (0.17, 0.23), rows=8, metric="wasserstein", threshold=0.1, higher_is_better=False)
    assert far.outcome == REFUTED and "coverage" not in far.reason
    # a Spearman at S = 4 disattenuated by its ceiling: the ceiling's interval under-covers at S = 4
    rho = decide(0.95, (0.93, 0.97), rows=4, ceiling=0.97, ceiling_ci=(0.95, 0.99), metric="spearman", **SPEARMAN)
    assert "the noise ceiling interval covered the truth in 0.89" in rho.reason
    assert "the Spearman interval" not in rho.reason  # its own interval was adequate at S = 4 (0.965)
    # a Spearman with a low ceiling: its own interval cannot cover
    low = decide(0.4, (0.3, 0.45), rows=8, ceiling=0.6, ceiling_ci=(0.5, 0.7), metric="spearman", **SPEARMAN)
    assert low.outcome == REFUTED and "the Spearman interval covered the truth in 0.53" in low.reason
    # a misfit refutation is not keyed on the interval: no caveat
    assert "coverage" not in decide(0.02, (0.015, 0.024), rows=4, misfit_p=1e-9, metric="wasserstein", **W1).reason
    with pytest.raises(ValueError, match="metric"):
        decide(0.5, (0.4, 0.6), rows=8, metric="W1", **SPEARMAN)
