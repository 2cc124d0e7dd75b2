"""The depth sweep's rows: every number recomputed from the theory API (influence_row, continuum_density, mpmath)."""

import math

import mpmath
import numpy as np
import pytest

from lostmid_jax import theory
from lostmid_jax.experiments import depth_sweep
from lostmid_jax.runs import load_run
from lostmid_jax.theory.schedules import power_law_schedule
from test_depth_sweep import _rows, smoke_run  # noqa: F401  (fixtures and helpers of the experiment's test files)


def test_profiles_are_the_theory_rows_with_one_based_positions(smoke_run):
    profiles = load_run(smoke_run).tables["profiles"]
    alpha, length, depths = depth_sweep.profile_choice(depth_sweep.Config(**depth_sweep.SMOKE))
    assert (alpha, length) == (0.5, 256) and sorted(profiles["depth"].unique()) == depths
    for depth in depths:
        rows = profiles[profiles["depth"] == depth]
        assert list(rows["j"]) == list(range(1, length + 1))
        assert np.allclose(rows["x"], rows["j"] / length, rtol=0, atol=0)
        row = np.asarray(theory.influence_row(length, depth, alpha), dtype=float)  # float64 route, not log space
        assert np.allclose(rows["log10_density"], np.log10(length * row), rtol=0, atol=1e-12)


def _alpha(row, depth):
    a = float(row["alpha"])
    return a if row["schedule"] == "constant" else power_law_schedule(depth, a, float(row["b"]))


def _check_row(r):
    """Recompute each column of one results.csv row from influence_row / continuum_density / mpmath directly."""
    depth = int(r["depth"])
    alpha = _alpha(r, depth)
    factorial = mpmath.log10(mpmath.log(2) ** (depth - 1) / mpmath.factorial(depth - 1))
    assert float(r["log10_factorial_law"]) == pytest.approx(float(factorial), abs=1e-12)
    assert r["continuum"] in ("True", "False")
    if r["continuum"] == "True":
        assert r["length"] == ""
        assert float(r["recency_weight"]) == pytest.approx(theory.recency_weight(depth, alpha), rel=1e-12)
        rho = theory.continuum_density(mpmath.mpf(1) / 2, depth, alpha, dps=30)
        assert float(r["log10_middle_density"]) == pytest.approx(float(mpmath.log10(rho)) if rho else -math.inf, abs=1e-10)
        # primacy = int_0^0.1 rho dx, with x = e^-t so the log singularity at 0 is smooth
        hops = theory.hop_distribution(depth, alpha, backend="mpmath", dps=20)
        density = lambda t: sum(p * t ** (k - 1) / mpmath.factorial(k - 1) for k, p in enumerate(hops) if k) * mpmath.exp(-t)  # noqa: E731
        primacy = mpmath.quad(density, [mpmath.log(10), 20, 60, 300])  # tail past 300: < 1e-80
        assert float(r["primacy_mass"]) == pytest.approx(float(primacy), rel=1e-8, abs=1e-14)
        if r["schedule"] == "constant" and 0 < float(r["alpha"]) < 1 and depth >= 2:
            assert r["log10_geometric_law"] != ""
        return
    length = int(r["length"])
    row = np.asarray(theory.influence_row(length, depth, alpha, backend="exact"), dtype=float)
    x = np.arange(1, length + 1) / length
    assert float(r["recency_weight"]) == pytest.approx(row[-1], rel=1e-12)
    assert float(r["primacy_mass"]) == pytest.approx(row[x <= 0.1].sum(), rel=1e-12)
    assert float(r["middle_mass"]) == pytest.approx(row[(x > 0.1) & (x < 0.9)].sum(), rel=1e-10, abs=1e-300)
    assert float(r["late_mass"]) == pytest.approx(row[(x >= 0.9) & (x < 1)].sum(), rel=1e-10, abs=1e-300)
    assert float(r["log10_middle_density"]) == pytest.approx(math.log10(length * row[length // 2 - 1]), abs=1e-10)
    assert float(r["valley_x"]) == (np.argmin(row) + 1) / length
    assert float(r["log10_peak_to_trough"]) == pytest.approx(math.log10(row.max() / row.min()), abs=1e-10)


# The default run recomputes every row except the exact (rational) rows of L = 256 at depths 16 and 32
# (9 s of the 10): every column, schedule, alpha and code path, the continuum at every depth;
# test_every_number_reproduced_by_theory_api (slow) recomputes them all.
SLOW_EXACT_DEPTHS = ("16", "32")


def test_numbers_reproduced_by_theory_api(smoke_run):
    rows = _rows(smoke_run)
    assert len(rows) == 2 * 3 * 6 * 2  # (constant + power) x alphas x depths x (L, continuum)
    picked = [r for r in rows if r["continuum"] == "True" or r["depth"] not in SLOW_EXACT_DEPTHS]
    assert len(picked) == 2 * 3 * (6 + 4)
    for r in picked:
        _check_row(r)


@pytest.mark.slow
def test_every_number_reproduced_by_theory_api(smoke_run):
    """Recompute each column from influence_row / continuum_density / mpmath directly."""
    rows = _rows(smoke_run)
    assert len(rows) == 2 * 3 * 6 * 2  # (constant + power) x alphas x depths x (L, continuum)
    for r in rows:
        _check_row(r)


def test_geometric_law_column_matches_laguerre_asymptotics(smoke_run):
    """At H = 32 the exact/asymptotic ratio is within the (H-1)^(-1/2) error band."""
    for r in _rows(smoke_run):
        if r["continuum"] == "True" and r["schedule"] == "constant" and r["depth"] == "32" and float(r["alpha"]) < 1:
            a = mpmath.mpf(r["alpha"])
            exact = a * (1 - a) ** 31 * mpmath.laguerre(31, 1, -(a / (1 - a)) * mpmath.log(2))
            assert float(r["log10_middle_density"]) == pytest.approx(float(mpmath.log10(exact)), abs=1e-10)
            ratio = 10 ** (float(r["log10_middle_density"]) - float(r["log10_geometric_law"]))
            z = float(a / (1 - a) * mpmath.log(2))
            assert abs(ratio - 1) < 2 * abs(4 * z**2 - 9) / (48 * math.sqrt(32 * z))
