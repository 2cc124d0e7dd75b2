"""The Step-0 summary of a model's units: mean normalized profiles and their comparison with theory."""

import math

import numpy as np
from scipy import stats as sps

from lostmid_jax.analysis.seed_summary import bin_choices, summarize_variant
from lostmid_jax.analysis.theory_fit import theory_row


def _units(seeds=3, length=16, depth=2):
    rng = np.random.default_rng(0)
    return [{"norms_total": rng.uniform(0.5, 2.0, length), "alphas": rng.uniform(0.2, 0.6, depth),
             "seconds": np.asarray(1.0)} for _ in range(seeds)]


def test_summary_is_the_mean_normalized_profile_against_the_measured_row():
    units = _units()
    s = summarize_variant(units)
    rows = np.stack([u["norms_total"] / u["norms_total"].sum() for u in units])
    assert np.allclose(s["paths"]["total"]["p"], rows.mean(0))
    assert np.allclose(s["paths"]["total"]["p_sem"], rows.std(0, ddof=1) / math.sqrt(3))
    a_l = np.mean([u["alphas"] for u in units], axis=0)
    assert np.allclose(s["theory"]["measured"], theory_row(16, a_l))
    expected = sps.spearmanr(rows.mean(0), s["theory"]["measured"]).statistic
    assert math.isclose(s["spearman_measured"], expected, rel_tol=1e-12)
    assert (s["seeds"], s["length"], s["depth"], s["seconds"]) == (3, 16, 2, 3.0) and 0 <= s["a_fit"] <= 1


def test_bins_compared():
    assert bin_choices(16) == (16,) and bin_choices(128) == (128, 64, 16)
