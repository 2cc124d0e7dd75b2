"""analysis/memory.py: the backward-pass memory formula and the chunk the plan chooses under a bound."""

import pytest

from lostmid_jax.analysis.memory import backward_bytes, plan_memory
from lostmid_jax.nn import preset

CFG = preset("toy", depth=2, width=16, heads=2, mlp="gelu", mlp_width=64, param_dtype="float32")


def test_backward_bytes_is_the_documented_formula():
    length, b, n, w, f, h = 32, 4, 2, 16, 64, 2
    act = length * (4 * w + 2 * f)
    per, fixed = backward_bytes(CFG, length, split=False, remat=False, weight_bytes=1000)
    assert per == b * (3 * n * length**2 + act)
    assert fixed == 1000 + h * b * (2 * n * length**2 + act)
    _, remat = backward_bytes(CFG, length, split=True, remat=True, weight_bytes=0)
    assert remat == 2 * h * b * length * 16 + b * (2 * n * length**2 + act)  # two forwards' residual streams


def test_a_given_chunk_is_capped_by_the_rows():
    plan = plan_memory(CFG, length=32, count=5, split=False, remat=True, weight_bytes=0, chunk=8)
    assert (plan.chunk, plan.reason, plan.budget_bytes) == (5, "chunk", None)
    assert plan.estimate_bytes == plan.fixed_bytes + 5 * plan.per_cotangent_bytes


def test_a_memory_bound_picks_the_largest_chunk_that_fits_or_refuses():
    big = plan_memory(CFG, length=32, count=1000, split=False, remat=True, weight_bytes=0, max_memory_gb=64)
    assert big.reason == "max_memory_gb" and big.estimate_bytes <= big.budget_bytes
    with pytest.raises(ValueError, match="max_memory_gb=0.001 leaves"):
        plan_memory(CFG, length=32, count=4, split=False, remat=True, weight_bytes=0, max_memory_gb=0.001)
