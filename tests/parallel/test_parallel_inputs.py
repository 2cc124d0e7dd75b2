"""One-device checks of the scale-out API: argument errors, the memory estimate vs XLA's, helpers."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx
from jax.sharding import Mesh

from lostmid_jax.analysis import ProfileRequest, influence_profile, pathway_profiles
from lostmid_jax.analysis.jacobian import cotangent_sq_norms
from lostmid_jax.analysis.memory import block_bytes, plan_memory
from lostmid_jax.nn import Decoder, preset
from lostmid_jax.parallel import gather_to_process0, make_mesh, map_over_mesh



@pytest.fixture(scope="module")
def tiny():
    model = Decoder(preset("toy", width=16, heads=2, kv_heads=1, depth=1, mlp_width=32), rngs=nnx.Rngs(0))
    return model, jax.random.normal(jax.random.key(1), (8, 16), model.cfg.compute_dtype)


@pytest.mark.parametrize("mesh, match", [
    (Mesh(np.asarray(jax.devices()[:1]), ("model",)), "axis named 'data'"),
    ("cpu", "jax.sharding.Mesh"),
])
def test_bad_mesh_names_mesh(tiny, mesh, match):
    for fn in (influence_profile, pathway_profiles):
        with pytest.raises(ValueError, match=f"mesh .*{match}"):
            fn(*tiny, mesh=mesh)


@pytest.mark.parametrize("gb", [0, -1.0, float("nan"), float("inf"), True, "1"])
def test_bad_max_memory_gb(tiny, gb):
    with pytest.raises(ValueError, match=r"max_memory_gb must be a finite number > 0"):
        influence_profile(*tiny, max_memory_gb=gb)


def test_bound_below_one_cotangent_names_max_memory_gb(tiny):
    with pytest.raises(ValueError, match=r"max_memory_gb=1e-06 leaves .* raise max_memory_gb"):
        pathway_profiles(*tiny, max_memory_gb=1e-6)


def test_bad_remat_and_devices(tiny):
    with pytest.raises(ValueError, match="remat must be None"):
        influence_profile(*tiny, remat="yes")
    for n in (0, jax.device_count() + 1, True, 1.5):
        with pytest.raises(ValueError, match=r"devices must be an int in \[1, "):
            make_mesh(n)


@pytest.mark.parametrize("remat", [False, True])
def test_memory_estimate_covers_xla_count(remat):
    """XLA's compiled buffer sizes (an independent count) stay below the plan's estimate, within 3x
    (0.58 and 0.54 measured at this size)."""
    cfg = preset("toy", param_dtype="float32")
    gd, st = nnx.split(nnx.eval_shape(lambda: Decoder(cfg, rngs=nnx.Rngs(0))))
    length, count, chunk = 128, 32, 8
    x = jax.ShapeDtypeStruct((length, cfg.width), jnp.float32)
    cots = jax.ShapeDtypeStruct((count, cfg.width), jnp.float32)
    request = ProfileRequest(length=length, split=True, remat=remat)
    mem = cotangent_sq_norms.lower(gd, st, x, cots, None, position=length - 1, split=True, chunk=chunk,
                                   execution=request.execution).compile().memory_analysis()
    xla = mem.temp_size_in_bytes + mem.output_size_in_bytes  # what the call adds to the state and inputs
    plan = plan_memory(cfg, length=length, count=count, split=True, remat=remat, weight_bytes=block_bytes(st),
                       chunk=chunk)
    assert plan.chunk == chunk and plan.reason == "chunk"
    assert xla <= plan.estimate_bytes <= 3 * xla, (xla, plan)


def test_map_over_mesh_and_gather_on_one_device():
    ys = map_over_mesh(lambda v: v * v + 1, jnp.arange(5.0), make_mesh(1))
    host = gather_to_process0({"y": ys})
    assert isinstance(host["y"], np.ndarray)
    np.testing.assert_array_equal(host["y"], [1.0, 2.0, 5.0, 10.0, 17.0])
