"""influence_profile never returns numbers that cannot be right: bad models, inputs, keys and overflow are named."""

import jax
import numpy as np
import pytest
from flax import nnx

from lostmid_jax.analysis import influence_profile, pathway_profiles
from lostmid_jax.analysis.estimators import check_measured
from lostmid_jax.nn import Decoder, preset


@pytest.fixture(scope="module")
def model():
    return Decoder(preset("toy", depth=1, width=16, heads=2, kv_heads=1, param_dtype="float32"), rngs=nnx.Rngs(0))


def _x(scale=1.0, length=8):
    return (scale * np.random.default_rng(0).standard_normal((length, 16))).astype(np.float32)


@pytest.mark.parametrize("bad", [None, "model", object()])
def test_model_must_be_a_decoder(bad):
    with pytest.raises(ValueError, match="model must be an nn.Decoder"):
        influence_profile(bad, _x())


@pytest.mark.parametrize("scale", [1e30, 3e19])
def test_overflowing_inputs_are_refused_not_returned(model, scale):
    """float32 saturates (1e30: a flat zero gradient) or overflows (3e19: inf in the norm): both raise."""
    with pytest.raises(ValueError, match="influence profile"):
        influence_profile(model, _x(scale))


def test_same_model_in_range_gives_a_finite_profile(model):
    norms = influence_profile(model, _x()).norms
    assert np.all(np.isfinite(norms)) and norms[-1] > 0


@pytest.mark.parametrize("key", ["abc", 1.5, True])
def test_bad_probe_key_is_named(model, key):
    with pytest.raises(ValueError, match="key must be"):
        influence_profile(model, _x(), method="randomized", probes=2, key=key)


def test_int_seeds_of_any_integer_type_are_keys(model):
    a = influence_profile(model, _x(), method="randomized", probes=2, key=np.int64(3)).norms
    b = influence_profile(model, _x(), method="randomized", probes=2, key=jax.random.key(3)).norms
    np.testing.assert_array_equal(a, b)


def test_score_pathway_may_be_zero_but_total_may_not():
    """Uniform attention has no score pathway (exact zeros are right); the check reads the total only."""
    cfg = preset("toy", depth=1, width=16, heads=2, kv_heads=1, attention="uniform")
    split = pathway_profiles(Decoder(cfg, rngs=nnx.Rngs(0)), _x())
    assert not np.any(split.score.norms) and np.all(split.total.norms[:-1] > 0)
    with pytest.raises(ValueError, match="zero at every position"):
        check_measured(np.zeros((2, 3, 4)))
    with pytest.raises(ValueError, match="non-finite"):
        check_measured(np.array([[[1.0, np.nan]]]))


@pytest.mark.parametrize("name,overrides,message", [(["toy"], {}, "name must be one of"),
                                                    ("toy", {"bogus": 1}, "bogus")])
def test_preset_names_bad_input(name, overrides, message):
    with pytest.raises(ValueError, match=message):
        preset(name, **overrides)


@pytest.mark.parametrize("probes", [10**9, 2**63])
def test_probe_counts_that_cannot_fit_are_refused_before_xla_aborts(model, probes):
    """Found by the fuzz suite: 1e12 probes made XLA abort the process while allocating them."""
    with pytest.raises(ValueError, match="probes: .* need"):
        influence_profile(model, _x(), method="randomized", probes=probes, key=0)


def test_inputs_too_long_for_this_machine_are_refused_before_xla_aborts(model):
    with pytest.raises(ValueError, match="x: L=100000 needs"):
        influence_profile(model, np.zeros((100000, 16), np.float32))


@pytest.mark.parametrize("ids", [np.arange(8), np.arange(8).reshape(1, 8), np.zeros((8, 16), np.int32)])
def test_token_ids_are_refused_with_a_hint_to_embed_them(model, ids):
    with pytest.raises(ValueError, match=r"token ids.*model\.embed"):
        influence_profile(model, ids)
    assert np.all(np.isfinite(influence_profile(model, np.asarray(model.embed(np.arange(8)))).norms))
