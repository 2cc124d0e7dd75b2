"""The comparison's table and verdict: every comparison with its 95% CI."""

import numpy as np

from lostmid_jax.experiments import pretrained_vs_init as compare
from test_pretrained_vs_init import _tables, smoke_run  # noqa: F401  (fixtures and helpers of the experiment's test files)


def test_every_comparison_has_a_95_ci(smoke_run):
    ag = _tables(smoke_run)["agreement"]
    assert {(m, r) for m, r in zip(ag["model"], ag["reference"])} == {
        ("pretrained", "theory_measured"), ("pretrained", "theory_fitted"), ("init", "theory_measured"),
        ("init", "theory_fitted"), ("pretrained", "init")}
    for stat in ("spearman", "wasserstein"):  # basic bootstrap intervals: finite, ordered
        assert np.isfinite(ag[[stat, f"{stat}_lo", f"{stat}_hi"]].to_numpy()).all()
        assert (ag[f"{stat}_lo"] <= ag[f"{stat}_hi"]).all()
    assert (ag["rows"] == compare.SMOKE["influence.seeds"]).all()
    verdict = (smoke_run / "verdict.txt").read_text()
    comparisons = [line for line in verdict.splitlines() if "Spearman" in line and " vs " in line]
    assert len(comparisons) == 3 and all(line.count("[") >= 3 for line in comparisons)
    assert "(smoke run: too small to test the paper's claims" in verdict
    table = (smoke_run / "table.txt").read_text()
    assert table.count("Spearman") == 5 and "95% CIs" in table
