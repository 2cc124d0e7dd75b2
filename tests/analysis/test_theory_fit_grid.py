"""fit_constant_alpha's grid of theory rows, kept between fits of one (L, H, prior): the same fits as
rows computed afresh, bit for bit (issue 37: the summary's host time)."""

import numpy as np
import pytest

from lostmid_jax import theory
from lostmid_jax.analysis import theory_fit


@pytest.mark.parametrize("objective", theory_fit.OBJECTIVES)
def test_kept_rows_give_the_fresh_fit(objective, monkeypatch):
    rng = np.random.default_rng(3)
    norms = [np.linspace(1.0, 0.2, 48) ** 2 + 0.05 * rng.random(48) for _ in range(3)]
    kept = [theory_fit.fit_constant_alpha(n, 5, objective=objective) for n in norms]
    rows = theory_fit.grid_log_rows(48, 5, theory.Causal())
    assert rows is theory_fit.grid_log_rows(48, 5, theory.Causal()) and not rows[0].flags.writeable
    monkeypatch.setattr(theory_fit, "GRID_CACHE_MAX_LENGTH", 0)  # every fit computes its rows again
    assert theory_fit.grid_log_rows(48, 5, theory.Causal()) is not rows
    assert [theory_fit.fit_constant_alpha(n, 5, objective=objective) for n in norms] == kept
