"""The study's tables: held-out scores recomputed from the saved units, the noise grid's 1/sqrt(n) law."""

import numpy as np
import pytest

from lostmid_jax.stats.heldout import heldout_score, split_halves
from lostmid_jax.analysis.theory_variants import variant_row
from lostmid_jax.runs.units import load_unit
from lostmid_jax.runs import load_run
from test_step0_study import run_dir  # noqa: F401  (fixtures and helpers of the experiment's test files)


def test_scores_recomputed_from_the_units(run_dir):
    """variants.csv follows from the saved units through heldout_score on the same split."""
    units = [load_unit(run_dir / "units" / f"toy__s{s}.npz") for s in range(4)]
    profiles = np.stack([u["norms"] for u in units])
    data = {k: np.stack([u[k] for u in units]) for k in ("alphas", "gains_sq", "gains_key", "mlp_gains", "mlp_gram")}
    split = split_halves(4, seed=0)
    table = load_run(run_dir).tables["variants"]
    for variant in ("fitted_a", "random_matrix", "random_matrix_keys", "random_matrix_keys_positionwise"):
        s = heldout_score(profiles, data, lambda p, d, v=variant: variant_row(
            v, 16, profiles=p, alphas=d["alphas"], gains_sq=d["gains_sq"], gains_key=d["gains_key"],
            mlp_gains=d["mlp_gains"], mlp_gram=d["mlp_gram"])[0], split=split, n_boot=200, seed=0)
        row = table[(table["variant"] == variant) & table["raw"]].iloc[0]
        assert row["spearman"] == pytest.approx(s.agreement.spearman, abs=1e-12)
        assert row["wasserstein"] == pytest.approx(s.agreement.wasserstein, abs=1e-12)
        assert row["rms_log"] == pytest.approx(s.rms_log, abs=1e-12)
        assert row["score_seeds"] == 2 and row["fit_seeds"] == 2
    assert 0 < table[table["variant"] == "fitted_a"]["a_fit"].iloc[0] <= 1
    # the units hold what the study reads: positive gains, near-uniform attention
    assert np.all(data["gains_sq"] > 0) and np.all(units[0]["kl"] < 0.05) and np.all(units[0]["max_ratio"] >= 1)
    assert data["gains_key"].shape == (4, 2, 16) and np.all(data["gains_key"] >= 0)
    assert data["mlp_gains"].shape == (4, 2, 16) and np.all(data["mlp_gains"] > 0)


def test_noise_grid_shrinks_as_one_over_root_seeds(run_dir):
    noise = load_run(run_dir).tables["noise"]
    assert sorted(set(noise["width"])) == [16, 32] and np.all(noise["rel_noise"] > 0)
    one = noise[noise["seeds"] == 1].set_index("width")["rel_noise"]
    four = noise[noise["seeds"] == 4].set_index("width")["rel_noise"]
    np.testing.assert_allclose(four, one / 2, rtol=1e-12)  # the n-seed mean's noise is sigma / sqrt(n)
