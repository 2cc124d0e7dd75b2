"""The depth sweep's verdict and summary, read from a tiny sweep's rows."""

import mpmath
import pytest

from lostmid_jax.experiments import depth_sweep


@pytest.fixture(scope="module")
def result():
    cfg = depth_sweep.Config(depths=(1, 2, 6), alphas=(0.5, 1.0), lengths=(16,), power_b=None)
    return depth_sweep.run(cfg, progress=False)


def test_factorial_deviation_is_zero_to_its_digits():
    """rho_H(1/2) at a = 1 (hop sums in mpmath) equals (ln 2)^(H-1)/(H-1)! (mpmath's factorial)."""
    for depth in (1, 2, 7):
        assert abs(depth_sweep.factorial_deviation(depth, dps=30)) < mpmath.mpf(10) ** -25


def test_verdict_says_where_the_factorial_law_holds(result):
    lines = depth_sweep.verdict(result)
    assert len(lines) == 2  # one line per a
    assert lines[0].startswith("a=0.5: factorial law fails: at H=6")
    assert lines[1].startswith("a=1: the factorial law holds exactly in the continuum: max over H in [1, 6]")
    assert "At L=16" in lines[1]


def test_summary_lists_every_a_at_the_shown_depths(result):
    text = depth_sweep.summary(result)
    assert text.splitlines()[0] == "constant a, L=16 and the continuum (mid = density at x=1/2)"
    rows = [line.split() for line in text.splitlines()[3:]]
    assert [(r[0], r[1]) for r in rows] == [(a, h) for a in ("0.5", "1") for h in ("1", "2", "6")]
