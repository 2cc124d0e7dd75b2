"""analysis/request.py: a profile request's validated fields and what they imply (pathways, K, L', execution)."""

import pytest

from lostmid_jax.analysis.request import ProfileRequest
from lostmid_jax.nn import preset


def test_fields_are_resolved():
    request = ProfileRequest(length=8, position=-1, remat=None)
    assert (request.position, request.remat, request.pathways) == (7, True, ("total",))
    assert ProfileRequest(length=8, position=-8).position == 0
    assert ProfileRequest(length=8, split=True).pathways == ("total", "value", "score")


def test_cotangent_count_and_execution():
    assert ProfileRequest(length=4).count(16) == 16
    assert ProfileRequest(length=4, method="randomized", probes=5).count(16) == 5
    assert ProfileRequest(length=4, method="one-pass").count(16) == 1
    execution = ProfileRequest(length=4, remat=False, unroll_layers=True).execution
    assert (execution.keep_probs, execution.remat, execution.unroll_layers, execution.attn_impl) == \
        (True, False, True, "blocked")


def test_prefix_is_what_can_reach_the_output_row():
    causal = preset("toy")
    assert ProfileRequest(length=8, position=3).prefix(causal) == 4
    assert ProfileRequest(length=8, position=3).prefix(preset("toy", mask="bidirectional")) == 8


@pytest.mark.parametrize("kwargs,name", [(dict(length=0), "length"), (dict(length=4, position=4), "position"),
                                         (dict(length=4, method="sampled"), "method"),
                                         (dict(length=4, probes=0), "probes"), (dict(length=4, chunk=0), "chunk"),
                                         (dict(length=4, split=1), "split"), (dict(length=4, mesh="cpu"), "mesh")])
def test_bad_fields_are_named(kwargs, name):
    with pytest.raises(ValueError, match=name):
        ProfileRequest(**kwargs)
