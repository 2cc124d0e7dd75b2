"""step0's tables: numbers recomputed from the units, every metric with its CI."""

import numpy as np
import pytest

from lostmid_jax.stats import profile_metrics as metrics
from lostmid_jax.runs.units import load_unit
from lostmid_jax.analysis.theory_fit import theory_row
from lostmid_jax.runs import read_csv
from test_step0 import run_dir  # noqa: F401  (fixtures and helpers of the experiment's test files)


def test_numbers_recomputed_from_units(run_dir):
    """metrics.csv follows from the saved units through the public metric functions."""
    units = [load_unit(run_dir / "units" / f"toy__native__s{s}.npz") for s in (0, 1)]
    p = np.mean([u["norms_total"] / u["norms_total"].sum() for u in units], axis=0)
    row = theory_row(16, np.mean([u["alphas"] for u in units], axis=0))
    m = {r["variant"]: r for r in read_csv(run_dir / "metrics.csv")}["native"]
    assert float(m["spearman_measured"]) == pytest.approx(metrics.spearman(p, row), abs=1e-12)
    assert float(m["wasserstein_measured"]) == pytest.approx(metrics.wasserstein(p, row), abs=1e-12)
    prof = [r for r in read_csv(run_dir / "profiles.csv") if r["variant"] == "native" and r["pathway"] == "total"]
    np.testing.assert_allclose([float(r["p_mean"]) for r in prof], p, rtol=1e-12)
    sem = np.std([u["norms_total"] / u["norms_total"].sum() for u in units], axis=0, ddof=1) / np.sqrt(2)
    np.testing.assert_allclose([float(r["p_sem"]) for r in prof], sem, rtol=1e-9, atol=1e-15)
    # RoPE has no parameters: with the same seed, native and nopos share every weight
    off = load_unit(run_dir / "units" / "toy__nopos__s0.npz")
    assert not np.allclose(off["norms_total"], units[0]["norms_total"])
    # the value and score pathways are saved and consistent with the total (score small at init)
    assert np.all(units[0]["norms_score"][:-1] < 0.2 * units[0]["norms_total"][:-1])


def test_every_metric_has_its_ci(run_dir):
    """Every metric of metrics.csv has _lo and _hi beside it, lo <= hi; agreement.csv is agreement()
    of the saved units (raw and binned), and the verdict prints the same CIs."""
    from lostmid_jax.analysis import agreement
    from lostmid_jax.runs import load_run

    run = load_run(run_dir)
    m = run.tables["metrics"].set_index("variant")
    for column in ("a_fit", "spearman_measured", "wasserstein_measured", "spearman_fitted", "wasserstein_fitted",
                   "log10_peak_to_trough", "theory_log10_peak_to_trough", "a_mean"):
        lo, hi = m.loc["native", f"{column}_lo"], m.loc["native", f"{column}_hi"]
        assert np.isfinite(lo) and lo <= hi, column
    assert 0 < m.loc["native", "ceiling"] <= 1 and np.isnan(m.loc["native", "ceiling_lo"])  # no jackknife at S = 2
    assert np.isfinite(m.loc["nopos", "spearman_vs_native_lo"]) and np.isnan(m.loc["native", "spearman_vs_native_lo"])
    ag = run.tables["agreement"]
    units = {v: np.stack([load_unit(run_dir / "units" / f"toy__{v}__s{s}.npz")["norms_total"] for s in (0, 1)])
             for v in ("native", "nopos")}
    prof = run.tables["profiles"]
    theory = prof[(prof["variant"] == "native") & (prof["pathway"] == "total")]["theory_measured"].to_numpy()
    for bins in (16,):
        want = agreement(units["native"], theory, bins=bins, n_boot=200)
        row = ag[(ag["variant"] == "native") & (ag["pathway"] == "total") & (ag["reference"] == "theory_measured")
                 & (ag["bins"] == bins)].iloc[0]
        assert row["spearman"] == pytest.approx(want.spearman, rel=1e-6)
        assert (row["spearman_lo"], row["spearman_hi"]) == pytest.approx(want.spearman_ci, rel=1e-6)
        assert row["wasserstein_hi"] == pytest.approx(want.wasserstein_ci[1], rel=1e-6)
    paired = agreement(units["native"], units["nopos"], n_boot=200)
    row = ag[(ag["variant"] == "nopos") & (ag["reference"] == "native") & (ag["bins"] == 16)].iloc[0]
    assert row["spearman"] == pytest.approx(paired.spearman, rel=1e-6)
    verdict = run.verdict
    lo, hi = m.loc["native", "spearman_rc_measured_lo"], m.loc["native", "spearman_rc_measured_hi"]
    assert f"[{lo:.4f}, {hi:.4f}]" in verdict
