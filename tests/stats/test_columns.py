"""stats.columns: one table of column meanings; the helpers cover exactly the columns the statistics write."""

from lostmid_jax.stats.agreement import agreement
from lostmid_jax.stats.columns import (CONTEXT, agreement_meanings, interval_meanings, meaning, misfit_meanings)
from lostmid_jax.stats.misfit import misfit_test


def test_meanings_cover_the_written_columns():
    rows = [[1.0, 2.0, 3.0, 4.0], [1.1, 2.1, 2.9, 4.2], [0.9, 1.8, 3.2, 4.1]]
    ref = [1.0, 2.0, 3.0, 4.0]
    assert list(agreement_meanings()) == list(agreement(rows, ref, n_boot=10).columns())
    assert list(misfit_meanings(suffix="_fitted")) == list(misfit_test(rows, ref).columns("_fitted"))
    assert agreement_meanings()["wasserstein_hi"][1] == CONTEXT


def test_meaning_fills_the_profile_and_reference():
    text, unit = meaning("spearman", profile="the held-out mean", reference="the theory row", note="raw")
    assert text == "Spearman rank correlation of the held-out mean with the theory row (raw)" and unit == ""
    assert "chi2_dof_native" in misfit_meanings(suffix="_native")["dof_native"][0]
    cols = interval_meanings({"a": ("an a", "s")}, "95% t interval", cite=True)
    assert cols == {"a": ("an a (95% t interval: a_lo, a_hi)", "s"), "a_lo": ("lower end of the 95% t interval of a", "s"),
                    "a_hi": ("upper end of the 95% t interval of a", "s")}
