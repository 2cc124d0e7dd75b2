"""parallel/mesh.py on one device: meshes, their checks, the default mesh, padding, and the map over a mesh."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import Mesh

from lostmid_jax.parallel.mesh import (check_mesh, default_mesh, make_mesh, map_over_mesh, mesh_size, pad_rows,
                                       using_mesh)


def test_meshes_and_their_checks():
    mesh = make_mesh(1)
    assert mesh.axis_names == ("data",) and mesh_size(mesh) == 1 and mesh_size(None) == 1
    assert check_mesh(None) is None and check_mesh(mesh).axis_names == ("data",)
    with pytest.raises(ValueError, match=r"devices must be an int in \[1, "):
        make_mesh(len(jax.devices()) + 1)
    with pytest.raises(ValueError, match="must have an axis named 'data'"):
        check_mesh(Mesh(np.asarray(jax.devices()[:1]), ("model",)))
    with pytest.raises(ValueError, match="must be a jax.sharding.Mesh"):
        check_mesh("cpu")


def test_using_mesh_sets_the_default_inside_the_block_only():
    assert default_mesh() is None
    with using_mesh(make_mesh(1)) as mesh:
        assert default_mesh() is mesh
    assert default_mesh() is None


def test_pad_rows_with_zeros_or_copies_of_row_zero():
    tree = {"a": jnp.arange(1.0, 6.0), "b": jnp.ones((5, 2))}
    padded, count = pad_rows(tree, 4)
    assert count == 5 and padded["a"].tolist() == [1, 2, 3, 4, 5, 0, 0, 0] and padded["b"].shape == (8, 2)
    assert pad_rows(tree, 4, repeat=True)[0]["a"].tolist()[5:] == [1, 1, 1]
    assert pad_rows(tree, 5)[0]["a"].shape == (5,)


def test_map_over_mesh_applies_fn_to_each_item():
    xs = jnp.arange(6.0).reshape(3, 2)
    ys = map_over_mesh(lambda x: x.sum() * 2, xs)
    assert np.asarray(ys).tolist() == [2.0, 10.0, 18.0]
