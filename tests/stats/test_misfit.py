"""stats.misfit: the one misfit statistic, calibrated on noise alone and sensitive to a wrong reference.

log_misfit on noise alone (S = 16, L = 48): p < 0.05 in 0.06 of 200 ensembles, mean chi^2/dof 1.01
(paired rows: 0.055, 1.02).
"""

import math

import numpy as np
import pytest

from lostmid_jax.stats.misfit import Misfit, log_misfit, misfit_columns

TRIALS = 200


def _normalized_mean(rows):
    rows = np.asarray(rows, np.float64)
    return (rows / rows.sum(1, keepdims=True)).mean(0)


def test_log_misfit_is_calibrated_and_detects_a_wrong_reference():
    """Noise alone: chi^2/dof near 1 and p < 0.05 in about 5% of ensembles; a reference off by 5% in its
    log slope: a tiny p. Paired rows that differ by noise only: calibrated too."""
    rng = np.random.default_rng(9)
    length, rows = 48, 16
    truth = np.exp(np.linspace(0, 2, length))
    draw = lambda: truth * np.exp(0.1 * rng.standard_normal((rows, length)))  # noqa: E731
    reference = _normalized_mean(truth * np.exp(0.1 * rng.standard_normal((200_000, length))))
    fits = [log_misfit(draw(), reference) for _ in range(TRIALS)]
    rate = np.mean([m.p_value < 0.05 for m in fits])
    assert 0.01 <= rate <= 0.12 and np.mean([m.reduced for m in fits]) == pytest.approx(1.0, abs=0.15)
    assert all(m.dof == length - 1 for m in fits)
    wrong = log_misfit(draw(), reference * np.exp(0.05 * np.linspace(0, 2, length)))
    assert wrong.p_value < 1e-6 and wrong.reduced > 3
    paired = [log_misfit(draw(), draw()) for _ in range(100)]
    assert np.mean([m.p_value < 0.05 for m in paired]) <= 0.15
    assert log_misfit(draw(), reference, fitted=1).dof == length - 2
    with pytest.raises(ValueError, match="profiles must have >= 2 rows"):
        log_misfit(np.ones((1, 4)), np.ones(4))


def test_one_set_of_columns():
    m = Misfit(30.0, 10, 0.001)
    assert m.columns() == {"chi2_dof": 3.0, "dof": 10, "p_misfit": 0.001}
    assert list(m.columns("_fitted")) == ["chi2_dof_fitted", "dof_fitted", "p_misfit_fitted"]
    none = misfit_columns(None)
    assert math.isnan(none["chi2_dof"]) and none["dof"] is None and math.isnan(none["p_misfit"])


def test_old_heldout_name_is_the_one_statistic():
    from lostmid_jax.analysis.heldout import misfit_chi2

    rng = np.random.default_rng(3)
    rows = np.exp(0.1 * rng.standard_normal((8, 20)))
    q = np.ones(20)
    assert misfit_chi2(rows, q) == log_misfit(rows, q).reduced
