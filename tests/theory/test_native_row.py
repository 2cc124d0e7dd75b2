"""The compiled float64 row (theory/native_row.py, native_row.cc): bit-identical to numpy's passes, fallback."""

import shutil
from fractions import Fraction

import numpy as np
import pytest

from lostmid_jax import theory
from lostmid_jax.theory import native_row
from lostmid_jax.theory._arith import FloatOps
from lostmid_jax.theory.prior_ops import rollout_row, row_operator

needs_compiler = pytest.mark.skipif(not shutil.which("g++") and not shutil.which("c++"),
                                    reason="no C++ compiler: the kernel cannot be built (numpy serves every row)")


def numpy_row(length, schedule, prior):
    """The numpy passes influence_row runs without the kernel (prior_ops.rollout_row)."""
    ops = FloatOps()
    return rollout_row(length, tuple(schedule), row_operator(prior, length, ops), ops)


def kernel_row(length, schedule, prior):
    row = native_row.segmented_row(length, tuple(schedule), prior, min_work=0)
    assert row is not None
    return row


def same_bits(x, y):
    return x.dtype == y.dtype == np.float64 and x.shape == y.shape and x.tobytes() == y.tobytes()


rng = np.random.default_rng(7)
SCHEDULES = {
    "constant": lambda h: [0.5] * h,
    "third": lambda h: [Fraction(1, 3)] * h,  # a Fraction: float(a) in both paths
    "ones": lambda h: [1] * h,  # a = 1 replaces the row in numpy; the kernel mixes 0 r + 1 s, the same bits
    "zeros and ones": lambda h: [(0, 1, 0.25, 0.0, 1.0)[i % 5] for i in range(h)],
    "random": lambda h: list(rng.uniform(0.0, 1.0, h)),
    "power law": lambda h: list(theory.power_law_schedule(h, 0.9, 0.5)) if h else [],
}


@needs_compiler
@pytest.mark.parametrize("schedule", sorted(SCHEDULES))
@pytest.mark.parametrize("length, depth", [(1, 3), (2, 1), (7, 0), (7, 5), (100, 64), (3001, 13), (4096, 130)])
def test_causal_rows_are_bit_identical(length, depth, schedule):
    alphas = SCHEDULES[schedule](depth)
    assert same_bits(kernel_row(length, alphas, theory.Causal()), numpy_row(length, alphas, theory.Causal()))


@needs_compiler
@pytest.mark.parametrize("lengths", [(5,), (1, 1, 1), (3, 1, 4, 1, 5), (64, 1, 200, 35), (1000, 999, 1)])
@pytest.mark.parametrize("schedule", ["constant", "zeros and ones", "random"])
def test_chunk_rows_are_bit_identical(lengths, schedule):
    prior, length = theory.Chunks(lengths), sum(lengths)
    alphas = SCHEDULES[schedule](24)
    assert same_bits(kernel_row(length, alphas, prior), numpy_row(length, alphas, prior))


@needs_compiler
def test_underflowing_rows_keep_their_subnormals():
    """a = 1 at depth 400 drives middle entries below 1e-308: subnormals and exact zeros agree as well."""
    kernel, numpy = kernel_row(3000, [1.0] * 400, theory.Causal()), numpy_row(3000, [1.0] * 400, theory.Causal())
    assert same_bits(kernel, numpy)
    assert np.any((numpy > 0) & (numpy < np.finfo(np.float64).tiny))  # the case reaches subnormals


@needs_compiler
def test_influence_row_uses_the_kernel_above_the_threshold(monkeypatch):
    length, depth = 20_000, 64  # H L = 1.28e6 >= MIN_WORK
    served = []
    real = native_row.run_kernel
    monkeypatch.setattr(native_row, "run_kernel", lambda *args: served.append(args[0]) or real(*args))
    row = theory.influence_row(length, depth, 0.4)
    assert served == [length]
    monkeypatch.setenv(native_row.ENV, "0")  # forced off: numpy, the same bits
    assert same_bits(row, theory.influence_row(length, depth, 0.4)) and served == [length]
    monkeypatch.delenv(native_row.ENV)
    theory.influence_row(100, 64, 0.4)  # small work stays in numpy (nothing to compile for a doctest)
    assert served == [length]


def test_other_priors_and_small_rows_stay_in_numpy(monkeypatch):
    for prior in (theory.SlidingWindow(3), theory.PrefixLM(2), theory.Bidirectional(), theory.ALiBi(2)):
        assert native_row.segmented_row(50, (0.5,) * 4, prior, min_work=0) is None, prior
    assert native_row.segmented_row(50, (0.5,) * 4, theory.Causal()) is None  # H L = 200 < MIN_WORK
    assert native_row.segmented_row(50, (0,) * 10**5, theory.Causal()) is None  # a = 0 layers are no work
    monkeypatch.setenv(native_row.ENV, "off")
    assert native_row.segmented_row(50, (0.5,) * 4, theory.Causal(), min_work=0) is None


@pytest.mark.parametrize("compiler", ["/bin/false", None])
def test_without_a_working_compiler_rows_fall_back_to_numpy(tmp_path, monkeypatch, caplog, compiler):
    """An empty cache and a failing compiler (or none on the PATH): the kernel is unavailable, logged
    once at INFO, and influence_row gives numpy's row, never an error."""
    monkeypatch.setenv("LOSTMID_CACHE", str(tmp_path))
    if compiler:
        monkeypatch.setenv("CXX", compiler)
    else:
        monkeypatch.delenv("CXX", raising=False)
        monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    native_row.load.cache_clear()
    native_row.unavailable_reason.cache_clear()
    try:
        with caplog.at_level("INFO", logger="lostmid_jax.theory.native_row"):
            row = theory.influence_row(20_000, 64, 0.5)
        reason = native_row.unavailable_reason()
        assert ("compiling native_row.cc failed" if compiler else "no C++ compiler") in reason
        assert caplog.text.count("theory row kernel unavailable, rows run in numpy") == 1
        assert same_bits(row, numpy_row(20_000, [0.5] * 64, theory.Causal()))
    finally:
        native_row.load.cache_clear()
        native_row.unavailable_reason.cache_clear()
