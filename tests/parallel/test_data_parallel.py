"""parallel/data_parallel.py on one device: placement of parameters and batches, and the identity without a mesh."""

import jax.numpy as jnp
import numpy as np

from lostmid_jax.parallel.data_parallel import data_parallel, replicate, shard_batch
from lostmid_jax.parallel.mesh import make_mesh, using_mesh


def _step(params, opt_state, batch):
    new = params - 0.1 * batch.mean()
    return new, opt_state + 1, {"loss": batch.sum()}


def test_without_a_mesh_everything_passes_through():
    params, opt_state, step, place = data_parallel(None, jnp.ones(2), 0, _step)
    batch = jnp.arange(4.0)
    assert place(batch) is batch and step is _step and opt_state == 0


def test_with_a_mesh_the_step_computes_the_same_and_leaves_are_placed():
    mesh = make_mesh(1)
    batch = jnp.arange(4.0)
    expected = _step(jnp.ones(2), jnp.asarray(0), batch)
    with using_mesh(mesh):  # the default mesh is taken when none is given
        params, opt_state, step, place = data_parallel(None, jnp.ones(2), jnp.asarray(0), _step)
    out = step(params, opt_state, place(batch))
    assert np.allclose(out[0], expected[0]) and int(out[1]) == 1 and float(out[2]["loss"]) == 6.0
    assert replicate(mesh, {"w": jnp.ones(3)})["w"].sharding.is_fully_replicated
    odd = shard_batch(mesh, {"x": jnp.ones((3, 2)), "s": jnp.asarray(1.0)})
    assert odd["x"].shape == (3, 2) and odd["s"].shape == ()
