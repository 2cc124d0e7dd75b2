"""The study's verdict: every printed point lies inside its interval."""

from test_step0_study import run_dir  # noqa: F401  (fixtures and helpers of the experiment's test files)


def test_printed_points_lie_inside_their_intervals(run_dir):
    """Every 'Spearman X [lo, hi]' and 'W1 X [lo, hi]' the verdict prints is the point its interval is centred on
    (the bias-corrected one); a row whose plain Spearman lies below its interval (noise lowers it) prints the
    corrected point, and a row written before the _bc columns existed prints the plain one."""
    import re

    from lostmid_jax.experiments.step0_study.claims import _scores

    found = re.findall(r"(?:Spearman|W1) (-?\d+\.\d+) \[(-?\d+\.\d+), (-?\d+\.\d+)\]",
                       (run_dir / "verdict.txt").read_text())
    assert found and all(float(lo) <= float(p) <= float(hi) for p, lo, hi in found), found
    row = {"spearman": 0.90, "spearman_bc": 0.95, "spearman_lo": 0.93, "spearman_hi": 0.97, "wasserstein": 0.05,
           "wasserstein_bc": 0.04, "wasserstein_lo": 0.035, "wasserstein_hi": 0.045}
    assert _scores(row).startswith("Spearman 0.950 [0.930, 0.970], W1 0.0400 [0.0350, 0.0450]")
    old = {k: v for k, v in row.items() if not k.endswith("_bc")}
    assert _scores(old).startswith("Spearman 0.900 [0.930, 0.970], W1 0.0500")
