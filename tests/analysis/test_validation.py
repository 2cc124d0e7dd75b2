"""Bad input raises ValueError naming the argument."""

import jax.numpy as jnp
import pytest

from lostmid_jax.analysis import attention_strength, influence_profile, pathway_profiles


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


@pytest.mark.parametrize("shape", [(16,), (16, 31), (2, 16, 32), (0, 32)])
def test_bad_input_shape(toy64, shape):
    model, _ = toy64
    with pytest.raises(ValueError, match="x must have shape"):
        influence_profile(model, jnp.ones(shape))
    with pytest.raises(ValueError, match="x must have shape"):
        attention_strength(model, jnp.ones(shape))
