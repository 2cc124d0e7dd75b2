"""analysis/sharded.py on one device: the mesh route gives the rows of the plain route, in order."""

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from lostmid_jax.analysis.request import ProfileRequest
from lostmid_jax.analysis.sharded import sq_norms
from lostmid_jax.nn import Decoder, preset
from lostmid_jax.parallel import make_mesh


def test_mesh_and_plain_routes_agree_row_by_row():
    cfg = preset("toy", depth=1, width=4, heads=2, mlp="none", param_dtype="float64")
    graphdef, state = nnx.split(Decoder(cfg, rngs=nnx.Rngs(0)))
    x = jax.random.normal(jax.random.key(1), (4, 4), jnp.float64)
    cots = jax.random.normal(jax.random.key(2), (3, 4), jnp.float64)
    plain_request = ProfileRequest(length=4, position=-1, split=True)
    mesh_request = ProfileRequest(length=4, position=-1, split=True, mesh=make_mesh(1))
    plain = sq_norms(graphdef, state, x, cots, request=plain_request, chunk=2)
    meshed = sq_norms(graphdef, state, x, cots, request=mesh_request, chunk=2)
    assert isinstance(plain, np.ndarray) and isinstance(meshed, np.ndarray) and plain.shape == meshed.shape == (3, 3, 4)
    assert np.allclose(meshed, plain, rtol=1e-12, atol=0) and np.all(plain[:, 0] > 0)
