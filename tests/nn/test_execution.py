"""nn/execution.py: the call-time switches, their checks, and when the fused CPU kernel can run a config."""

import pytest

from lostmid_jax.nn import preset
from lostmid_jax.nn.execution import DEFAULT_EXECUTION, Execution, check_execution, fused_cpu_problems

F32 = dict(param_dtype="float32")


@pytest.mark.parametrize("kwargs,name", [(dict(remat=1), "remat"), (dict(attn_block=0), "attn_block"),
                                         (dict(keep_probs="yes"), "keep_probs"), (dict(attn_impl="cuda"), "attn_impl"),
                                         (dict(unroll_layers=None), "unroll_layers")])
def test_bad_switches_are_named(kwargs, name):
    with pytest.raises(ValueError, match=name):
        Execution(**kwargs)


@pytest.mark.parametrize("fields,runs", [
    (dict(), True), (dict(position="alibi", mask="causal"), False), (dict(sinks=2, mask="sliding_window", window=4), False),
    (dict(param_dtype="float64"), False), (dict(attention="uniform"), False),
])
def test_fused_cpu_problems(fields, runs):
    cfg = preset("toy", **{**F32, **fields})
    assert (fused_cpu_problems(cfg) is None) == runs


def test_check_execution():
    cfg = preset("toy", **F32)
    assert check_execution(None, cfg) is DEFAULT_EXECUTION
    assert check_execution(Execution(attn_impl="fused_cpu"), cfg).attn_impl == "fused_cpu"
    with pytest.raises(ValueError, match="attn_impl='fused_cpu' needs"):
        check_execution(Execution(attn_impl="fused_cpu"), preset("toy", param_dtype="float64"))
    with pytest.raises(ValueError, match="execution must be an nn.Execution or None, got dict"):
        check_execution({"remat": False}, cfg)
    assert hash(Execution()) == hash(Execution())  # a static argument of jitted functions
