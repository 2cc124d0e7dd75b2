"""Sharded vs one-device results on 8 simulated CPU devices (launched by test_parallel_launch.py).

Float32 models; "agree" means |a - b| <= 1e-6 max|a| for profiles (max of the
total for the score pathway, a float32 difference J_total - J_value that may be
~1e-9 of it), allclose parameters after a few data-parallel training steps.
"""

import os

import pytest

if os.environ.get("LOSTMID_PARALLEL_DEVICES") != "8":
    pytest.skip("needs 8 simulated devices: run through test_parallel_launch.py", allow_module_level=True)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from flax import nnx  # noqa: E402

from lostmid_jax.analysis import influence_profile, pathway_profiles  # noqa: E402
from lostmid_jax.analysis.ensemble import mapped_profiles  # noqa: E402
from lostmid_jax.nn import Decoder, preset  # noqa: E402
from lostmid_jax.parallel import make_mesh, using_mesh  # noqa: E402
from lostmid_jax.train import TrainConfig, toy_model, train  # noqa: E402

TINY = dict(param_dtype="float32", width=16, heads=2, kv_heads=1, depth=2, mlp_width=32)


def _model(seed=0):
    return Decoder(preset("toy", **TINY), rngs=nnx.Rngs(jax.random.key(seed)))


def _x(seed=1, length=12):
    return jax.random.normal(jax.random.key(seed), (length, 16), jnp.float32)


def _close(a, b, scale=None):
    np.testing.assert_allclose(b, a, rtol=0, atol=1e-6 * (np.abs(a).max() if scale is None else scale))


@pytest.fixture(scope="module")
def mesh():
    assert jax.device_count() == 8, jax.devices()
    return make_mesh(8)


@pytest.mark.parametrize("kw", [dict(method="exact"), dict(method="randomized", probes=12, key=3)])
def test_influence_profile_sharded_equals_single(mesh, kw):
    model, x = _model(), _x()
    one, many = influence_profile(model, x, **kw), influence_profile(model, x, mesh=mesh, **kw)
    _close(one.sq_norms, many.sq_norms)
    if kw["method"] == "randomized":  # 12 probes padded to 16: the padding must not enter mean or SE
        _close(one.sq_stderr, many.sq_stderr)
        assert many.cotangents == 12
    assert many.plan.devices == 8 and many.plan.chunk <= -(-many.cotangents // 8)
    assert one.plan.devices == 1


def test_pathway_profiles_sharded_equal_single(mesh):
    model, x = _model(), _x()
    one, many = pathway_profiles(model, x), pathway_profiles(model, x, mesh=mesh)
    for name in ("total", "value", "score"):
        _close(getattr(one, name).sq_norms, getattr(many, name).sq_norms)
    assert np.abs(many.score.sq_norms).max() > 0 and np.abs(many.value.sq_norms).max() > 0


def test_seeds_mapped_over_mesh_equal_one_by_one(mesh):
    seeds = [0, 1, 2]  # 3 items on 8 devices: padding
    per_seed = mapped_profiles(lambda s: (_model(s), _x(), None), jnp.asarray(seeds), split=True, mesh=mesh)
    assert len(per_seed) == 3
    for s, profs in zip(seeds, per_seed):
        ref = pathway_profiles(_model(s), _x())
        for got, name in zip(profs, ("total", "value", "score")):
            _close(getattr(ref, name).sq_norms, got.sq_norms, scale=ref.total.sq_norms.max())
    assert not np.allclose(per_seed[0][0].sq_norms, per_seed[1][0].sq_norms)  # seeds really differ


def test_memory_bound_keeps_profile_and_reports_chunk(mesh):
    model, x = _model(), _x(length=128)
    kw = dict(method="randomized", probes=64, key=0, mesh=mesh)  # 8 rows per device
    free = influence_profile(model, x, **kw)
    rss_gb = int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**30
    # ~23 MB above the resident set, split over 8 CPU devices: ~3 MB each, room for a few of 8 rows
    bounded = influence_profile(model, x, max_memory_gb=rss_gb + 0.023, remat=True, **kw)
    _close(free.sq_norms, bounded.sq_norms)
    plan = bounded.plan
    assert free.plan.chunk == 8 and free.plan.budget_bytes is None
    assert plan.reason == "max_memory_gb" and plan.remat and 1 <= plan.chunk < 8
    assert plan.estimate_bytes <= plan.budget_bytes < plan.estimate_bytes + plan.per_cotangent_bytes
    assert f"chunk {plan.chunk} of 64 cotangents x 8 device(s), remat on" in str(plan)


def _train_cfg():
    return TrainConfig(task="retrieval", steps=3, model=toy_model(width=16, depth=1, heads=2, kv_heads=1, vocab=16),
                       kv_pairs=4, needle_bins=2, kv_batch=8, lm_length=24, doc_length=8, lm_batch=2,
                       snapshot_steps=(), eval_per_bin=4, ckpt_every=1, warmup=1)


def test_data_parallel_training_matches_single_and_shares_checkpoints(mesh, tmp_path):
    cfg = _train_cfg()
    one = train(cfg, tmp_path / "one")
    with using_mesh(mesh):  # the path the CLI's --devices takes
        many = train(cfg, tmp_path / "many")
    assert many.params["blocks"]["attn"]["q"]["kernel"][...].sharding.is_fully_replicated
    ones, manys = jax.tree.leaves(one.params), jax.tree.leaves(many.params)
    assert len(ones) == len(manys)
    for a, b in zip(ones, manys):
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-5, atol=1e-6)
    assert [m["loss"] for m in many.metrics] == pytest.approx([m["loss"] for m in one.metrics], rel=1e-5)
    half = train(cfg, tmp_path / "mixed", stop_after=2, mesh=mesh)  # 2 sharded steps, then resume on one device
    assert half.step == 2
    resumed = train(cfg, tmp_path / "mixed")
    for a, b in zip(ones, jax.tree.leaves(resumed.params)):
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-5, atol=1e-6)


STEP0 = dict(models={"presets": ("toy",)}, influence={"length": 8, "seeds": 2, "method": "randomized", "probes": 3},
             variants=("native",), heat_length=8)
STEP0_ARGS = ["--preset", "toy", "--length", "8", "--seeds", "2", "--variants", "native", "--method", "randomized",
              "--probes", "3", "--heat-length", "8", "--n-boot", "100", "--no-progress", "--no-figures",
              "--devices", "2"]  # 100 bootstrap replicates: the CIs are not what this checks


def _spy_on_seed_profiles(monkeypatch):
    """[(seeds, returned profiles)] of each step0.seed_profiles call (the seed-parallel route)."""
    from lostmid_jax.experiments.step0 import measure as step0

    calls, seed_profiles = [], step0.seed_profiles

    def spy(*args, **kwargs):
        calls.append((list(args[3]), seed_profiles(*args, **kwargs)))
        return calls[-1][1]

    monkeypatch.setattr(step0, "seed_profiles", spy)
    return calls


def test_step0_cli_devices_measures_seeds_in_one_call(tmp_path, monkeypatch):
    """`lostmid step0 --devices 2`: both seeds in one seed-parallel call, whose profiles are the saved units.
    That the seed-parallel profiles equal one-device ones: test_seeds_mapped_over_mesh_equal_one_by_one
    (mapped_profiles over the mesh) and tests/experiments/test_step0.py (seed_profiles vs the units of run_unit);
    the whole comparison: test_step0_seeds_spread_over_devices (slow)."""
    from lostmid_jax.experiments import script
    from lostmid_jax.runs.units import load_unit

    calls = _spy_on_seed_profiles(monkeypatch)
    assert script.main("step0", [*STEP0_ARGS, "--out", str(tmp_path / "cli")]) == 0
    assert [seeds for seeds, _ in calls] == [[0, 1]]  # both seeds in one call, one per device
    for seed, profs in enumerate(calls[0][1]):
        unit = load_unit(tmp_path / "cli" / "units" / f"toy__native__s{seed}.npz")
        assert set(profs) == {"total", "value", "score"}
        for name, prof in profs.items():
            np.testing.assert_array_equal(unit[f"norms_{name}"], prof.norms)
        np.testing.assert_array_equal(unit["stderr_total"], profs["total"].stderr)
        assert np.all(unit["norms_total"] > 0) and unit["alphas"].shape == (2,)


@pytest.mark.slow
def test_step0_seeds_spread_over_devices(tmp_path, monkeypatch):
    from lostmid_jax.experiments import script
    from lostmid_jax.experiments.step0 import measure as step0
    from lostmid_jax.experiments.step0.config import Config as Step0Config
    from lostmid_jax.runs.units import load_unit

    cfg = Step0Config(**STEP0)
    calls = _spy_on_seed_profiles(monkeypatch)
    one = step0.run_all(cfg, tmp_path / "one", progress=False)[("toy", "native")]
    assert calls == []
    two = step0.run_all(cfg, tmp_path / "two", progress=False, mesh=make_mesh(2))[("toy", "native")]
    assert [seeds for seeds, _ in calls] == [[0, 1]]  # both seeds in one call, one per device
    assert script.main("step0", [*STEP0_ARGS, "--out", str(tmp_path / "cli")]) == 0
    assert [seeds for seeds, _ in calls] == [[0, 1], [0, 1]]
    for seed, (a, b) in enumerate(zip(one, two)):
        c = load_unit(tmp_path / "cli" / "units" / f"toy__native__s{seed}.npz")
        scale = a["norms_total"].max()
        for key in ("norms_total", "norms_value", "norms_score", "stderr_total", "alphas"):
            _close(a[key], b[key], scale=scale if key.startswith("norms") else None)
            np.testing.assert_array_equal(b[key], c[key])
