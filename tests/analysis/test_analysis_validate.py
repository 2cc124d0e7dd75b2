"""Bad input raises ValueError naming the argument."""

import jax.numpy as jnp
import numpy as np
import pytest

from lostmid_jax.analysis import ProfileRequest, attention_strength, influence_profile, pathway_profiles
from lostmid_jax.nn import Execution


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(position=16), "position"),
        (dict(position=-17), "position"),
        (dict(position=1.5), "position"),
        (dict(probes=0), "probes"),
        (dict(probes=0, method="randomized", key=0), "probes"),
        (dict(method="sampled"), "method"),
        (dict(method="randomized"), "key"),
        (dict(chunk=0), "chunk"),
        (dict(segment_ids=jnp.zeros(3, int)), "segment_ids"),
    ],
)
def test_bad_arguments(toy64, kwargs, match):
    model, x = toy64
    with pytest.raises(ValueError, match=match):
        influence_profile(model, x, **kwargs)
    with pytest.raises(ValueError, match=match):
        pathway_profiles(model, x, **kwargs)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_input_names_x(toy64, bad):
    model, x = toy64
    x = x.at[3, 7].set(bad)
    for fn in (influence_profile, pathway_profiles):
        with pytest.raises(ValueError, match=r"x must be finite: 1 NaN or inf entries \(first at \(3, 7\)\)"):
            fn(model, x)


def test_request_is_validated_once_and_resolved(toy64):
    model, _ = toy64
    req = ProfileRequest(length=16, method="randomized", probes=np.int64(4), position=-3, chunk=2, split=True)
    assert (req.position, req.probes, req.remat, req.pathways) == (13, 4, True, ("total", "value", "score"))
    assert req.execution == Execution(remat=True, keep_probs=True, attn_impl="blocked")
    assert req.prefix(model.cfg) == 14 and req.count(model.cfg.width) == 4
    with pytest.raises(ValueError, match="split must be True or False"):
        ProfileRequest(length=16, split="yes")
    with pytest.raises(ValueError, match="length must be an int >= 1"):
        ProfileRequest(length=0)


@pytest.mark.parametrize("shape", [(16,), (16, 31), (2, 16, 32), (0, 32)])
def test_bad_input_shape(toy64, shape):
    model, _ = toy64
    with pytest.raises(ValueError, match="x must have shape"):
        influence_profile(model, jnp.ones(shape))
    with pytest.raises(ValueError, match="x must have shape"):
        attention_strength(model, jnp.ones(shape))
