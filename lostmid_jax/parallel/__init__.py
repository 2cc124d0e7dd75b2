"""Spreading work over devices and hosts with JAX's own SPMD machinery (Mesh, shard_map, jit).

Shapes: n devices along the mesh axis "data", E independent work items.

    mesh = make_mesh(8)                                 # 1-D mesh, axis "data"
    prof = influence_profile(model, x, mesh=mesh)       # cotangent rows split over devices
    ys = map_over_mesh(fn, seeds, mesh)                 # independent items (seeds, configs of one graph)
    params, opt_state, step, place = data_parallel(mesh, params, opt_state, step)
    initialize_distributed(); gather_to_process0(ys)    # multi-host (docs/scaling.md)
"""

from .data_parallel import data_parallel, replicate, shard_batch
from .distributed import gather_to_process0, initialize_distributed, is_process0, to_host
from .mesh import AXIS, check_mesh, default_mesh, make_mesh, map_over_mesh, mesh_size, pad_rows, using_mesh

__all__ = [
    "AXIS", "check_mesh", "data_parallel", "default_mesh", "gather_to_process0", "initialize_distributed",
    "is_process0", "make_mesh", "map_over_mesh", "mesh_size", "pad_rows", "replicate", "shard_batch", "to_host",
    "using_mesh",
]
