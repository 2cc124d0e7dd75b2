"""stats.coverage: the measured-coverage table and the caveat text chosen from it."""

import pytest

from lostmid_jax.stats.coverage import ADEQUATE, METRICS, TABLE, WORST_ADEQUATE, caveat, measured, regime


def test_table_is_complete_and_consistent():
    for c in TABLE:
        assert c.metric in METRICS and c.rows in (4, 8, 16) and c.cells >= 6
        assert 0 <= c.low <= c.mean <= c.high <= 1 and c.worst_ci[0] <= c.low <= c.worst_ci[1]
    for metric, regimes in (("spearman", ("ceiling < 0.85", "ceiling >= 0.85")),
                            ("wasserstein", ("W1 < 0.05", "W1 >= 0.05")), ("ceiling", ("all",))):
        for name in regimes:
            assert sorted(c.rows for c in TABLE if c.metric == metric and c.regime == name) == [4, 8, 16]


def test_caveat_at_four_seeds_and_none_where_measured_adequate():
    ceiling4 = measured("ceiling", 4)
    assert caveat("ceiling", 4).startswith(f"the noise ceiling interval covered the truth in {ceiling4.mean:.2f}")
    assert "W1 < 0.05 at S = 4" in caveat("wasserstein", 4, value=0.02)
    # S between measured values reads the row below it; fewer than 4 seeds were not measured
    assert measured("wasserstein", 12, value=0.02).rows == 8 and measured("ceiling", 40).rows == 16
    assert "not measured below 4 seeds" in caveat("spearman", 3, ceiling=0.99)
    for c in TABLE:
        value = 0.2 if c.regime == "W1 >= 0.05" else 0.01
        ceiling = 0.99 if c.regime == "ceiling >= 0.85" else 0.5
        adequate = c.mean >= ADEQUATE and c.low >= WORST_ADEQUATE
        note = caveat(c.metric, c.rows, value=value, ceiling=ceiling)
        assert (note == "") == adequate
        if not adequate:  # the caveat quotes the worst cell, not only the mean
            assert f"{c.low:.2f} in the worst of {c.cells}" in note and c.worst in note


def test_regime_needs_a_known_metric():
    assert regime("spearman", ceiling=None) == "ceiling < 0.85" and regime("wasserstein", value=0.05) == "W1 >= 0.05"
    with pytest.raises(ValueError, match="metric"):
        regime("pearson")
