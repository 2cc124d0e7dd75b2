"""mapped_profiles on one device: the same request, plan and numbers as pathway_profiles per item."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lostmid_jax.analysis import influence_profile, mapped_profiles, pathway_profiles
from lostmid_jax.nn import Decoder, preset

CFG = preset("toy", width=16, heads=2, kv_heads=1, depth=1, mlp_width=32, param_dtype="float64")


def _build(seed):
    model = Decoder(CFG, rngs=nnx.Rngs(jax.random.key(seed)))
    return model, jax.random.normal(jax.random.key(1), (10, 16), jnp.float64), jax.random.key(7)


@pytest.mark.extended  # 12 s; mapped exact profiles stay in the default run
def test_mapped_randomized_split_equals_one_by_one():
    """Randomized probes from each item's key, the three pathways, an earlier position and a ragged chunk
    (5 of 6 probes) in one mapped program. The exact method through mapped_profiles: tests/experiments/test_step0.py
    (seed_profiles, one device), tests/parallel (over a mesh) and test_mapped_equals_one_by_one (slow)."""
    seeds = [0, 3]
    kw = dict(method="randomized", probes=6, split=True, position=7, chunk=5)
    per_seed = mapped_profiles(_build, jnp.asarray(seeds), **kw)
    assert len(per_seed) == 2
    for seed, profs in zip(seeds, per_seed):
        model, x, key = _build(seed)
        ref = pathway_profiles(model, x, key=key, **{k: v for k, v in kw.items() if k != "split"})
        assert len(profs) == 3
        for got, name in zip(profs, ("total", "value", "score")):
            np.testing.assert_allclose(got.sq_norms, getattr(ref, name).sq_norms, rtol=1e-12, atol=1e-300)
            assert got.position == 7 and np.all(got.norms[8:] == 0) and got.cotangents == 6
        np.testing.assert_allclose(profs[0].sq_stderr, ref.total.sq_stderr, rtol=1e-12, atol=1e-300)
        assert profs[0].plan == ref.total.plan  # one planning code: the same plan
    assert not np.allclose(per_seed[0][0].sq_norms, per_seed[1][0].sq_norms)  # the seeds' models differ


@pytest.mark.slow
def test_mapped_equals_one_by_one():
    seeds = [0, 3]
    per_seed = mapped_profiles(_build, jnp.asarray(seeds), split=True, position=7, chunk=5)
    for seed, profs in zip(seeds, per_seed):
        model, x, _ = _build(seed)
        ref = pathway_profiles(model, x, position=7, chunk=5)
        for got, name in zip(profs, ("total", "value", "score")):
            np.testing.assert_allclose(got.norms, getattr(ref, name).norms, rtol=1e-12, atol=1e-300)
            assert got.position == 7 and np.all(got.norms[8:] == 0)
        assert profs[0].plan == ref.total.plan  # one planning code: the same plan
    randomized = mapped_profiles(_build, jnp.asarray([0]), method="randomized", probes=3)  # split=False
    assert len(randomized[0]) == 1
    randomized = randomized[0][0]
    model, x, key = _build(0)
    want = influence_profile(model, x, method="randomized", probes=3, key=key)
    np.testing.assert_allclose(randomized.sq_norms, want.sq_norms, rtol=1e-12)


@pytest.mark.parametrize("kwargs,match", [(dict(method="jacrev"), "method"), (dict(method="sampled"), "method"),
                                          (dict(probes=0), "probes"), (dict(position=10), "position"),
                                          (dict(chunk=0), "chunk"), (dict(max_memory_gb=-1), "max_memory_gb"),
                                          (dict(mesh="cpu"), "mesh")])
def test_bad_arguments_name_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        mapped_profiles(_build, jnp.asarray([0]), **kwargs)


def test_randomized_needs_a_key_from_build():
    build = lambda s: _build(s)[:2] + (None,)  # noqa: E731
    with pytest.raises(ValueError, match="key is required"):
        mapped_profiles(build, jnp.asarray([0]), method="randomized", probes=2)


@pytest.mark.extended  # ~15-40 s on 2 busy cores: compiles the vmapped program with its ragged remainder
def test_items_vmapped_together_equal_one_by_one():
    """batch=2 over 3 seeds (a full batch and a ragged one, issue 37: seeds batched on the device) gives each
    seed's own profile within float64 rounding; on CPU batch="auto" keeps one item at a time."""
    from lostmid_jax.analysis.ensemble import items_at_once

    seeds = [0, 3, 5]
    kw = dict(method="randomized", probes=2, position=7)
    together = mapped_profiles(_build, jnp.asarray(seeds), batch=2, **kw)
    for seed, (got,) in zip(seeds, together):
        model, x, key = _build(seed)
        want = influence_profile(model, x, key=key, **kw)
        np.testing.assert_allclose(got.sq_norms, want.sq_norms, rtol=1e-10, atol=1e-300)
    assert items_at_once(together[0][0].plan, 3) == 1 and jax.devices()[0].platform == "cpu"
    with pytest.raises(ValueError, match="batch"):
        mapped_profiles(_build, jnp.asarray([0]), batch=0)
