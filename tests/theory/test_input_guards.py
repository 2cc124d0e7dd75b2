"""Bad input never crashes, hangs or lies in lostmid_jax.theory (issue 18).

Every case either gives a clear ValueError naming the argument (and, for the
resource guards, the limit) within a fraction of a second, or a finite,
correct result. NumPy scalars and 0-d arrays are accepted and converted once.
"""

import math
import subprocess
import sys
import time
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from lostmid_jax import theory
from lostmid_jax.theory import _arith
from lostmid_jax.validation import (check_bool, check_bool_like, check_choice, check_float, check_float_like, check_int,
                                   check_int_like, check_real, python_scalar)

FAST = 1.0  # seconds: a guard answers before any work starts


def _refused(make, *names):
    """``make()`` raises a ValueError naming every one of ``names``, fast."""
    start = time.perf_counter()
    with pytest.raises(ValueError) as info:
        make()
    elapsed = time.perf_counter() - start
    for name in names:
        assert name in str(info.value), f"{name!r} not in: {info.value}"
    assert elapsed < FAST, f"took {elapsed:.2f} s: {info.value}"
    return str(info.value)


# --- the shared validation layer -------------------------------------------------------------

def test_like_checks_accept_numpy_scalars_and_0d_arrays():
    assert check_int_like("n", np.int64(3)) == 3 and type(check_int_like("n", np.array(3, dtype=np.int32), 1)) is int
    assert type(check_float_like("a", np.float32(0.5))) is float and check_float_like("a", np.array(0.25)) == 0.25
    assert check_bool_like("flag", np.bool_(True)) is True and check_bool_like("flag", np.array(False)) is False
    assert check_real("a", Fraction(1, 3), 0, 1) == Fraction(1, 3)
    assert type(check_real("a", np.float32(0.5))) is float and type(check_real("a", np.int16(1))) is int
    assert python_scalar(np.longdouble(1) / 3) == Fraction(*(np.longdouble(1) / 3).as_integer_ratio())
    assert python_scalar(np.str_("b")) == "b" and type(python_scalar(np.str_("b"))) is str


def test_plain_checks_keep_their_acceptance():
    """check_int / check_float / check_bool keep what they accepted: callers that only validate store the value."""
    assert check_int("n", np.int64(3)) == 3 and check_float("a", np.float32(0.5)) == 0.5
    for bad in (np.bool_(True), np.array(True)):
        _refused(lambda: check_bool("flag", bad), "flag")
    _refused(lambda: check_int("n", np.array(3)), "n")


@pytest.mark.parametrize("check,value", [
    (lambda v: check_bool_like("flag", v), "False"),
    (lambda v: check_bool_like("flag", v), np.int64(1)),
    (lambda v: check_bool_like("flag", v), None),
    (lambda v: check_int_like("flag", v), True),
    (lambda v: check_int_like("flag", v), np.bool_(True)),
    (lambda v: check_int_like("flag", v), 2.0),
    (lambda v: check_float("flag", v), 10**400),
    (lambda v: check_float("flag", v), Fraction(10**400)),
    (lambda v: check_float_like("flag", v), np.array([0.5])),
    (lambda v: check_float_like("flag", v), np.float32("nan")),
    (lambda v: check_real("flag", v), "0.5"),
    (lambda v: check_real("flag", v), 1 + 0j),
    (lambda v: check_real("flag", v), np.bool_(False)),
    (lambda v: check_choice("flag", v, ("a",)), ["a"]),
])
def test_validation_refuses_with_the_name(check, value):
    _refused(lambda: check(value), "flag")


def test_existing_messages_are_unchanged():
    with pytest.raises(ValueError, match=r"^a0 must be a finite number in \[0, 1\], got 1.5$"):
        theory.check_alpha("a0", 1.5)
    with pytest.raises(ValueError, match=r"^length must be an int >= 1, got 0$"):
        theory.check_length(0)
    with pytest.raises(ValueError, match=r"^exact must be True or False, got 'False'$"):
        theory.cesaro_matrix(4, exact="False")


# --- NumPy types at the theory boundary: the same results ------------------------------------

def test_numpy_scalars_give_the_same_rows():
    ref = theory.influence_row(6, 3, 0.5)
    np.testing.assert_array_equal(theory.influence_row(np.int64(6), np.int32(3), np.float32(0.5)), ref)
    np.testing.assert_array_equal(theory.influence_row(6, 3, np.array(0.5)), ref)
    np.testing.assert_array_equal(theory.log_influence_row(6, 3, np.array(0.5)), theory.log_influence_row(6, 3, 0.5))
    np.testing.assert_array_equal(theory.influence_row(6, 3, np.array([0.5] * 3, dtype=np.float32)), ref)
    assert theory.influence_row(4, 2, np.float32(0.5), backend="exact") == theory.influence_row(4, 2, Fraction(1, 2), backend="exact")
    assert theory.influence_row(4, 2, np.array(1), backend="exact") == theory.influence_row(4, 2, 1, backend="exact")
    mp = theory.influence_row(4, 2, np.float32(0.5), backend="mpmath", dps=np.int64(30))
    assert [mpmath.nstr(v, 25) for v in mp] == [mpmath.nstr(v, 25) for v in theory.influence_row(4, 2, 0.5, backend="mpmath", dps=30)]
    arb = theory.influence_row(4, 2, np.array(0.5), backend="arb", dps=np.int16(20))
    exact = theory.influence_row(4, 2, 0.5, backend="exact")
    assert [float(ball.mid()) for ball in arb] == pytest.approx([float(f) for f in exact], rel=1e-15)


def test_numpy_scalars_in_the_other_functions():
    assert theory.continuum_density(np.float32(0.5), np.int64(3), np.array(0.5)) == theory.continuum_density(0.5, 3, 0.5)
    mp = theory.continuum_density(np.array(0.5), 3, np.float32(0.5), dps=np.int64(30))
    assert abs(mp - theory.continuum_density(0.5, 3, 0.5, dps=30)) == 0
    assert theory.hop_distribution(np.int64(2), np.float32(0.5), backend="exact") == [Fraction(1, 4), Fraction(1, 2), Fraction(1, 4)]
    assert theory.power_law_schedule(np.int64(3), np.float32(0.75), np.array(1.0)) == theory.power_law_schedule(3, 0.75, 1.0)
    assert theory.recency_weight(np.int8(3), np.array(0.5)) == 0.125
    assert theory.continuum_moment(np.float32(1), 2, np.float32(0.5)) == 0.5625
    assert theory.cesaro_matrix(3, exact=np.bool_(True))[2][0] == Fraction(1, 3)
    assert theory.mixing_matrix(np.int64(2), np.array(0.5), exact=np.bool_(True))[1][0] == Fraction(1, 4)
    prior = theory.ALiBi(np.int64(2), slopes=np.array([0.5, 0.25], dtype=np.float32))
    assert prior == theory.ALiBi(2, (0.5, 0.25)) and all(type(m) is float for m in prior.slopes)
    assert theory.Chunks((np.int64(2), np.int32(3))) == theory.Chunks((2, 3))
    assert theory.parse_prior(np.str_("window:2"), np.int64(8)) == theory.SlidingWindow(2)
    assert theory.summarize_log_row([0.0]).recency_weight == 1.0
    from lostmid_jax.theory.middle_laws import log_factorial_law, log_geometric_law
    assert log_factorial_law(np.int64(3), np.float32(0.5)) == log_factorial_law(3, 0.5)
    assert log_geometric_law(np.int64(5), np.array(0.5)) == log_geometric_law(5, 0.5)


# --- bad values name their argument ----------------------------------------------------------

@pytest.mark.parametrize("make,name", [
    (lambda: theory.cesaro_matrix(4, exact="False"), "exact"),
    (lambda: theory.continuum_density(None, 3, 0.5), "x"),
    (lambda: theory.continuum_density("abc", 3, 0.5), "x"),
    (lambda: theory.continuum_density(None, 3, 0.5, dps=20), "x"),
    (lambda: theory.continuum_density("abc", 3, 0.5, dps=20), "x"),
    (lambda: theory.continuum_density([0.5, None], 3, 0.5), "x"),
    (lambda: theory.continuum_density(float("inf"), 3, 0.5), "x"),
    (lambda: theory.continuum_density(np.array([0.5, np.nan]), 3, 0.5), "x"),
    (lambda: theory.continuum_density([0.5, mpmath.mpf("nan")], 3, 0.5, dps=20), "x"),
    (lambda: theory.log_continuum_density(None, 3, 0.5), "x"),
    (lambda: theory.influence_row(4, 2, np.array(np.nan)), "alpha"),
    (lambda: theory.influence_row(4, 2, np.float32("inf")), "alpha"),
    (lambda: theory.influence_row(4, 2, None), "alpha"),
    (lambda: theory.influence_row(4, 2, "0.5"), "alpha"),
    (lambda: theory.influence_row(4, 2, [0.5, np.nan]), "alpha[1]"),
    (lambda: theory.influence_row(4.0, 2, 0.5), "length"),
    (lambda: theory.influence_row(4, np.bool_(True), 0.5), "depth"),
    (lambda: theory.influence_row(4, 2, 0.5, backend="mpmath", dps=None), "dps"),
    (lambda: theory.influence_row(4, 2, 0.5, dps="50"), "dps"),
    (lambda: theory.continuum_moment(float("nan"), 2, 0.5), "m"),
    (lambda: theory.power_law_schedule(3, 0.5, float("inf")), "b"),
    (lambda: theory.power_law_schedule(3, np.nan, 1.0), "a0"),
    (lambda: theory.ALiBi(1, slopes=[float("inf")]), "slopes[0]"),
    (lambda: theory.ALiBi(1, slopes=[10**400]), "slopes[0]"),
    (lambda: theory.summarize_log_row("abc"), "log_row"),
    (lambda: theory.summarize_log_row(None), "log_row"),
    (lambda: theory.exact_matmul([[0.5]], [[1]]), "x[0][0]"),
    (lambda: theory.exact_matmul([[1]], [[1, 2], [3]]), "y"),
    (lambda: theory.exact_matmul([[1, 2]], [[1, 2]]), "columns"),
    (lambda: theory.exact_matmul(None, [[1]]), "x"),
    (lambda: theory.exact_matmul([[1]], []), "y"),
    (lambda: theory.parse_prior("alibi:2:nan/1", 8), "slopes[0]"),
    (lambda: theory.exact_matmul(np.array(0.5), [[1]]), "x"),
    (lambda: theory.ALiBi(1, slopes=np.array(0.5)), "slopes"),
    (lambda: theory.Chunks(np.array(3)), "lengths"),
    (lambda: theory.influence_row(10**400, 2, 0.5), "length"),
    (lambda: theory.log_influence_row(8, 10**400, 0.5), "depth"),
    (lambda: theory.continuum_density(0.5, 10**400, 0.5), "depth"),
    (lambda: theory.positions(10**400), "length"),
    (lambda: theory.Chunks.equal(10**400, 1), "length"),
])
def test_bad_values_name_the_argument(make, name):
    _refused(make, name)


# --- resource guards: refused at once, naming the argument and the limit ----------------------

@pytest.mark.parametrize("make,names", [
    (lambda: theory.influence_row(8, 2, 0.5, backend="mpmath", dps=10**8), ("dps", "max_dps")),
    (lambda: theory.influence_row(8, 2, 0.5, backend="arb", dps=10**5), ("dps", "max_dps")),
    (lambda: theory.hop_distribution(4, 0.5, backend="mpmath", dps=10**8), ("dps", "max_dps")),
    (lambda: theory.continuum_density(0.5, 4, 0.5, dps=10**8), ("dps", "max_dps")),
    (lambda: theory.ALiBi(10**7), ("n_heads", "max_heads")),
    (lambda: theory.parse_prior("alibi:10000000", 8), ("n_heads", "max_heads")),
    (lambda: theory.influence_row(8, 10**8, 0.5), ("depth", "max_operations")),
    (lambda: theory.log_influence_row(8, 10**8, 0.5), ("depth", "max_operations")),
    (lambda: theory.influence_row(8, 10**8, 0.5, backend="exact"), ("depth", "max_")),
    (lambda: theory.hop_distribution(10**8, 0.5), ("depth", "max_")),
    (lambda: theory.log_hop_distribution(10**8, 0.5), ("depth", "max_")),
    (lambda: theory.continuum_summary(10**8, 0.5), ("depth", "max_")),
    (lambda: theory.recency_weight(10**9, 0.5), ("depth", "max_")),
    (lambda: theory.continuum_moment(1, 10**9, 0.5), ("depth", "max_")),
    (lambda: theory.power_law_schedule(10**9, 0.5, 0.5), ("depth", "max_")),
    (lambda: theory.continuum_density(0.5, 10**7, 0.5), ("depth", "max_operations")),
    (lambda: theory.continuum_density(0.5, 10**7, 0.5, form="laguerre"), ("depth", "max_operations")),
    (lambda: theory.continuum_density(0.5, 10**7, 0.5, dps=20), ("depth", "max_operations")),
    (lambda: theory.log_continuum_density(0.5, 10**7, 0.5), ("depth", "max_operations")),
    (lambda: theory.cesaro_matrix(20000, exact=True), ("length", "max_memory_gb")),
    (lambda: theory.cesaro_matrix(10**6), ("length", "max_memory_gb")),
    (lambda: theory.mixing_matrix(20000, 0.5, exact=True), ("length", "max_")),
    (lambda: theory.attention_matrix(theory.Causal(), 10**6), ("length", "max_memory_gb")),
    (lambda: theory.attention_matrix(theory.ALiBi(4000), 2000), ("n_heads", "max_memory_gb")),
    (lambda: theory.influence_row(10**12, 1, 0.5), ("length", "max_memory_gb")),
    (lambda: theory.log_influence_row(10**12, 1, 0.5), ("length", "max_memory_gb")),
    (lambda: theory.influence_row(10**12, 1, 0.5, backend="jax"), ("length", "max_memory_gb")),
    (lambda: theory.influence_row(10**9, 1, 0.5, backend="mpmath"), ("length", "max_")),
    (lambda: theory.influence_row(5000, 500, Fraction(1, 3), backend="exact"), ("length", "depth", "max_")),
    (lambda: theory.influence_row(10**5, 10**4, 0.5, prior=theory.ALiBi(64)), ("n_heads", "max_operations")),
    (lambda: theory.positions(10**12), ("length", "max_memory_gb")),
    (lambda: theory.distance_from_middle(10**12), ("length", "max_memory_gb")),
    (lambda: theory.band_masks(10**12), ("length", "max_memory_gb")),
    (lambda: theory.Chunks.equal(10**9, 1), ("length", "size", "max_")),
    (lambda: theory.parse_prior("chunks:1", 10**9), ("length", "max_")),
    (lambda: theory.continuum_density(np.full(10**6, 0.5), 10**4, 0.5), ("x", "depth", "max_")),
    (lambda: theory.exact_matmul([[1] * 3000] * 3000, [[1] * 3000] * 3000), ("exact_matmul", "max_operations")),
])
def test_sizes_that_cannot_finish_are_refused_at_once(make, names):
    _refused(make, *names)


def test_huge_windows_are_the_causal_prior():
    causal = theory.influence_row(8, 3, 0.5, backend="exact")
    assert theory.influence_row(8, 3, 0.5, prior=theory.SlidingWindow(10**400), backend="exact") == causal
    assert theory.influence_row(8, 3, 0.5, prior=theory.Sinks(2, 10**400), backend="exact") == causal
    np.testing.assert_array_equal(theory.attention_matrix(theory.SlidingWindow(10**400), 5), theory.cesaro_matrix(5))
    from lostmid_jax.theory.middle_laws import log_factorial_law
    _refused(lambda: log_factorial_law(10**400), "depth")


def test_heads_beyond_the_limit_are_refused_by_the_work_guard_too():
    with theory.limits(max_heads=10**7):
        prior = theory.ALiBi(10**7)
    _refused(lambda: theory.log_influence_row(8, 2, 0.5, prior=prior), "n_heads", "max_operations")


def test_limits_can_be_raised_and_lowered_for_a_block():
    with theory.limits(max_dps=10_001) as lim:
        assert lim.max_dps == 10_001 and theory.current_limits() is lim
        assert len(theory.influence_row(2, 1, 0.5, backend="mpmath", dps=10_001)) == 2
    assert theory.current_limits().max_dps == 10_000
    with theory.limits(max_operations=1e3):
        _refused(lambda: theory.influence_row(100, 10, 0.5), "max_operations")
    assert theory.influence_row(100, 10, 0.5).sum() == pytest.approx(1.0)
    with theory.limits(max_memory_gb=1e-6):
        _refused(lambda: theory.positions(10**4), "max_memory_gb")
    _refused(lambda: theory.limits(max_dps=2).__enter__(), "max_dps")
    _refused(lambda: theory.limits(max_operations=float("nan")).__enter__(), "max_operations")
    _refused(lambda: theory.limits(max_digits=5).__enter__(), "max_digits")


def test_flint_is_never_reached_with_a_size_that_aborts():
    """dps = 10**12 used to kill the interpreter (SIGABRT in FLINT); even with raised limits it may not reach it."""
    code = (
        "from lostmid_jax import theory\n"
        "for kwargs in ({}, {'max_dps': 10**12, 'max_memory_gb': 1e9, 'max_operations': 1e30}):\n"
        "    with theory.limits(**kwargs):\n"
        "        try:\n"
        "            theory.influence_row(4, 2, 0.5, backend='arb', dps=10**12)\n"
        "        except ValueError as e:\n"
        "            print('refused:', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 2 and all("dps" in line for line in lines), out.stdout
    assert "max_dps" in lines[0] and "machine" in lines[1]


# --- steep ALiBi heads: a one-hot diagonal, computed stably ----------------------------------

def test_huge_alibi_slopes_give_the_one_hot_limit():
    prior = theory.ALiBi(2, slopes=[1e308] * 2)
    log_row = theory.log_influence_row(6, 3, 0.5, prior=prior)
    assert not np.any(np.isnan(log_row)) and log_row[-1] == 0.0
    assert np.all(log_row[:-1] <= -1e308)  # e^(-1e308) per step: -inf or -1e308 + O(1)
    np.testing.assert_array_equal(theory.influence_row(6, 3, 0.5, prior=prior), np.eye(6)[-1])
    np.testing.assert_array_equal(theory.attention_matrix(prior, 4), np.eye(4))
    rows = theory.influence_row(4, 2, 0.5, prior=prior, backend="mpmath", dps=20)
    assert rows[-1] == 1 and all(v > 0 and mpmath.log(v) < -0.99e308 for v in rows[:-1])


@pytest.mark.parametrize("slopes", [(3e7, 0.5), (1e3, 1e9), (40.0, 2e8)])
def test_steep_alibi_log_rows_match_mpmath(slopes):
    """Slopes past the one-pass shift (m (L-1) > 1e8) use the doubling scan; mpmath at 40 digits agrees."""
    prior = theory.ALiBi(2, slopes=slopes)
    log_row = theory.log_influence_row(9, 4, 0.6, prior=prior)
    ref = [float(mpmath.log(v)) for v in theory.influence_row(9, 4, 0.6, prior=prior, backend="mpmath", dps=40)]
    assert np.all(np.isfinite(log_row))
    np.testing.assert_allclose(log_row, ref, rtol=1e-13, atol=1e-12)


def test_doubling_scan_equals_the_shifted_scan(monkeypatch):
    rng = np.random.default_rng(18)
    u = rng.normal(size=300) * 5
    u[[3, 100, 299]] = -np.inf
    ops = _arith.LogOps()
    for m in (0.0, 0.01, 0.7, 3.0):
        shifted = ops.geometric_suffix(u, m)
        monkeypatch.setattr(_arith, "SHIFT_LIMIT", -1.0)
        doubled = ops.geometric_suffix(u, m)
        monkeypatch.undo()
        np.testing.assert_allclose(doubled, shifted, rtol=1e-13, atol=1e-13)


def test_guards_do_not_change_results():
    """The rows of ordinary sizes are those of the unguarded operator, bit for bit."""
    from lostmid_jax.theory.prior_ops import rollout_row, row_operator

    for prior in (theory.Causal(), theory.ALiBi(4), theory.SlidingWindow(3)):
        ops = _arith.LogOps()
        with np.errstate(divide="ignore"):
            direct = rollout_row(32, (0.5,) * 5, row_operator(prior, 32, ops), ops)
        np.testing.assert_array_equal(theory.log_influence_row(32, 5, 0.5, prior=prior), direct)
    assert math.isfinite(theory.continuum_density(0.5, 256, 0.5))
