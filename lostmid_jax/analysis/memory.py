"""How many cotangents share one batched backward pass: the memory plan of a profile.

Memory the backward passes add to what is already in use (parameters,
inputs), per device, with b = max(bytes of the compute dtype, 4), L' the
prefix length, N query heads, W = max(D, N head_dim), F the MLP width, H
depth, f = 2 forward passes with the pathway split (else 1), |theta_H| the
bytes of the block weights (XLA keeps transposed copies for the backward) and
a = b (2 N L'^2 + L' (4 W + 2 F)) one block's forward activations:

    per cotangent   m_c = b (3 N L'^2 + L' (4 W + 2 F))     one block's backward at a time
    fixed, no remat m_0 = |theta_H| + f H a                 every block's activations kept
    fixed, remat    m_0 = |theta_H| + f H b L' D + a        residual streams + one block recomputed
    estimate        m(chunk) = m_0 + chunk m_c

XLA's compiled buffer count (memory_analysis: temporaries + outputs; toy,
gpt2-small and qwen2 blocks, float32, L' = 128..512, chunk 8) is 0.37-0.75
of m(chunk) (tests/parallel/test_parallel_inputs.py checks the toy case).
With ``max_memory_gb`` = G the largest chunk with m(chunk) <= budget is
taken, budget = (G - in use) / n on CPU (n devices share host memory; in use
= this process's resident set) and G - bytes in use of the fullest device on
accelerators.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os

import jax
import numpy as np

from ..parallel import mesh_size
from .jacobian import auto_chunk

_GB = 2**30
_LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True, kw_only=True)
class MemoryPlan:
    """What the engine chose for one profile (per device).

    Attributes:
      chunk: cotangents per batched backward pass on each device.
      cotangents: K rows in all; each device runs ceil(K / devices) of them.
      devices: n devices along the mesh axis "data" (1 without a mesh).
      remat: whether the blocks were rematerialized in the backward pass.
      per_cotangent_bytes, fixed_bytes: m_c and m_0 (module docstring).
      estimate_bytes: m_0 + chunk m_c.
      budget_bytes: per-device memory left by ``max_memory_gb`` (None without a
        bound): (G - in use) / (this host's devices) on CPU, G - in use on accelerators.
      in_use_bytes: memory in use when the plan was made (resident set on CPU).
      reason: "max_memory_gb", "chunk" (given) or "auto" (a ~2 GB attention budget).
    """

    chunk: int
    cotangents: int
    devices: int
    remat: bool
    per_cotangent_bytes: int
    fixed_bytes: int
    estimate_bytes: int
    budget_bytes: int | None
    in_use_bytes: int
    reason: str

    def __str__(self) -> str:
        bound = "" if self.budget_bytes is None else f" <= budget {self.budget_bytes / _GB:.2f} GB"
        return (f"chunk {self.chunk} of {self.cotangents} cotangents x {self.devices} device(s), "
                f"remat {'on' if self.remat else 'off'}: est. {self.estimate_bytes / _GB:.2f} GB/device{bound} "
                f"({self.reason}; {self.in_use_bytes / _GB:.2f} GB in use before)")


def backward_bytes(cfg, length: int, *, split: bool, remat: bool, weight_bytes: int) -> tuple[int, int]:
    """(m_c, m_0) in bytes for prefix length L' and block weights of ``weight_bytes`` (module docstring)."""
    b = max(np.dtype(cfg.compute_dtype).itemsize, 4)
    n, d = cfg.heads, cfg.width
    w = max(d, n * cfg.resolved_head_dim)
    f = cfg.resolved_mlp_width if cfg.mlp != "none" else 0
    act = length * (4 * w + 2 * f)
    per, layer = b * (3 * n * length**2 + act), b * (2 * n * length**2 + act)
    forwards = 2 if split else 1
    if remat:
        fixed = forwards * cfg.depth * b * length * d + layer
    else:
        fixed = forwards * cfg.depth * layer
    return int(per), int(weight_bytes + fixed)


def in_use_bytes(devices) -> int:
    """Bytes in use now: the fullest device's count where JAX reports one, else this process's RSS."""
    counts = [(dev.memory_stats() or {}).get("bytes_in_use") for dev in devices if dev.platform != "cpu"]
    counts = [c for c in counts if c is not None]
    if counts:
        return int(max(counts))
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def plan_memory(cfg, *, length: int, count: int, split: bool, remat: bool, weight_bytes: int, mesh=None,
                chunk: int | None = None, max_memory_gb: float | None = None, rows_split: bool = True) -> MemoryPlan:
    """The chunk per device for K = ``count`` cotangents split along the "data" axis of ``mesh`` (None: one device).

    ``weight_bytes``: |theta_H|, see :func:`block_bytes`.

    ``rows_split`` False: every device runs all K rows of its own work item
    (parallel.map_over_mesh), one item at a time.

    Raises:
      ValueError: naming ``max_memory_gb`` when even chunk 1 does not fit; without it, naming ``x``
        when one cotangent would not fit in 3/4 of a CPU machine's memory.
    """
    devices = jax.devices()[:1] if mesh is None else list(mesh.devices.flat)
    devices = [d for d in devices if d.process_index == jax.process_index()]  # this host's share
    n = mesh_size(mesh)
    local = math.ceil(count / n) if rows_split else count
    per, fixed = backward_bytes(cfg, length, split=split, remat=remat, weight_bytes=weight_bytes)
    used = in_use_bytes(devices) if max_memory_gb is not None else 0
    budget = None
    if max_memory_gb is None:
        if devices[0].platform == "cpu" and fixed + per > 0.75 * physical_memory_bytes():
            raise ValueError(
                f"x: L={length} needs ~{(fixed + per) / _GB:.3g} GB for one cotangent (remat {remat}), more than 3/4 "
                f"of this machine's {physical_memory_bytes() / _GB:.3g} GB: XLA would abort; use a shorter x, "
                "remat=True, or more devices")
        c, reason = (chunk, "chunk") if chunk is not None else (auto_chunk(cfg, length, local), "auto")
    else:
        free = max_memory_gb * _GB - used
        budget = int(free / len(devices) if devices[0].platform == "cpu" else free)
        fit = (budget - fixed) // per
        if fit < 1:
            raise ValueError(
                f"max_memory_gb={max_memory_gb} leaves {budget / _GB:.3f} GB per device ({used / _GB:.2f} GB in use, "
                f"{n} device(s)) but one cotangent needs ~{(fixed + per) / _GB:.3f} GB (remat {remat}); "
                f"raise max_memory_gb, use remat=True, a shorter x or more devices")
        c, reason = min(chunk or local, int(fit)), "max_memory_gb"
    c = max(1, min(c, local))
    return MemoryPlan(chunk=c, cotangents=count, devices=n, remat=remat, per_cotangent_bytes=per,
                      fixed_bytes=fixed, estimate_bytes=fixed + c * per, budget_bytes=budget,
                      in_use_bytes=used, reason=reason)


def plan_request(request, cfg, state, *, rows_split: bool = True) -> MemoryPlan:
    """The plan of a :class:`.ProfileRequest` on the model ``cfg`` with ``state`` (logged at INFO).

    L' = request.prefix(cfg), K = request.count(D), remat and mesh from the
    request; ``rows_split`` as in :func:`plan_memory`.

    Raises:
      ValueError: naming ``probes`` when the K cotangent rows and their squared norms alone
        cannot fit in 3/4 of the machine's memory (XLA would abort the process).
    """
    check_rows_fit(request, cfg)
    plan = plan_memory(cfg, length=request.prefix(cfg), count=request.count(cfg.width), split=request.split,
                       remat=request.remat, weight_bytes=block_bytes(state), mesh=request.mesh,
                       chunk=request.chunk, max_memory_gb=request.max_memory_gb, rows_split=rows_split)
    _LOG.info("influence profile: %s", plan)
    return plan


def check_rows_fit(request, cfg) -> None:
    """Refuse K cotangents [K, D] plus their squared norms [K, P, L'] (float64 on the host) beyond 3/4 of the memory."""
    count = request.count(cfg.width)
    need = count * (cfg.width * np.dtype(cfg.compute_dtype).itemsize + len(request.pathways) * request.prefix(cfg) * 8)
    limit = 0.75 * physical_memory_bytes()
    if need > limit:
        name = "probes" if request.method == "randomized" else "method"
        raise ValueError(f"{name}: {count} cotangent rows and their squared norms need {need / 2**30:.3g} GB, more "
                         f"than 3/4 of this machine's memory ({limit / 2**30:.3g} GB); use fewer probes "
                         "(method='randomized')")


def physical_memory_bytes() -> int:
    """This machine's physical memory (bytes)."""
    import os

    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def block_bytes(state) -> int:
    """|theta_H|: bytes of a Decoder state's stacked blocks (all of ``state`` if it has none)."""
    part = state["blocks"] if "blocks" in state else state
    return int(sum(a.size * np.dtype(a.dtype).itemsize for a in jax.tree.leaves(part)))
