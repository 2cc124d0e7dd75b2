"""The float64 row of a segmented suffix-sum prior (Causal, Chunks) in one compiled pass, bit-identical.

For a prior whose operator is a suffix sum per segment, (rA)_j = sum_{i >= j, i in seg(j)} r_i / c_i
(``prior.suffix_segments(L)`` not None), numpy's :func:`.prior_ops.rollout_row` makes ~6 passes over
[L] per layer. native_row.cc does all H layers in one sweep over positions (layer l one position
behind layer l - 1), with the same float64 operations in the same order for every element, so its
row equals numpy's bit for bit (tests/theory/test_native_row.py) at a fraction of the time
(benchmarks/theory_bench.py; docs/performance.md).

:func:`segmented_row` returns None, and the caller runs numpy, when the prior is not such a prior,
the work H L is below :data:`MIN_WORK` (numpy is quick there and nothing gets compiled), the
kernel is switched off ($LOSTMID_THEORY_NATIVE = 0, off, no or false) or it cannot be built here
(no compiler: logged once at INFO). It is compiled on first use by :mod:`lostmid_jax.native`
(cached, sealed) with -O3 -march=native (-mcpu=native on ARM) -ffp-contract=off and never -ffast-math.
"""

from __future__ import annotations

import ctypes
import functools
import logging
import os
import pathlib
import platform

import numpy as np

from .. import native
from ._arith import FloatOps

SOURCE = pathlib.Path(__file__).with_name("native_row.cc")
SYMBOL = "lostmid_segmented_row"
FLAGS = ["-O3", "-std=c++17", "-fPIC", "-mcpu=native" if platform.machine() in ("aarch64", "arm64") else "-march=native",
         "-ffp-contract=off", "-fno-fast-math", "-w"]
"""No FMA contraction, no reassociation: what keeps the bits of numpy's separate multiply and add."""
ENV = "LOSTMID_THEORY_NATIVE"
MIN_WORK = 20_000
"""Smallest H L (layers with a != 0 times positions) sent to the compiled kernel: numpy takes ~0.3 ms
there, so a doctest-sized row neither waits for a first compile nor loads the library."""
_LOG = logging.getLogger(__name__)


def enabled() -> bool:
    """False when $LOSTMID_THEORY_NATIVE is 0, off, no or false (then every row runs in numpy)."""
    return os.environ.get(ENV, "").strip().lower() not in ("0", "off", "no", "false")


@functools.cache
def load():
    """The kernel's function (built or loaded from the cache); raises native.KernelUnavailable."""
    path = native.library_path("native_row", (SOURCE,), FLAGS)
    if not path.exists():
        _LOG.info("theory row kernel: compiling %s with %s into %s", SOURCE.name, native.compiler(), path)
    _, functions = native.open_library(native.build(path, SOURCE, FLAGS, "theory row kernel"), [SYMBOL],
                                       "theory row kernel")
    function = functions[SYMBOL]
    function.argtypes = [ctypes.c_int64, ctypes.c_int64] + [ctypes.c_void_p] * 4
    function.restype = ctypes.c_int
    return function


@functools.cache
def unavailable_reason() -> str | None:
    """None when the kernel can be used here, else why not (logged once at INFO)."""
    try:
        load()
    except native.KernelUnavailable as err:
        _LOG.info("theory row kernel unavailable, rows run in numpy: %s", err)
        return str(err)
    return None


def segmented_row(length: int, schedule: tuple, prior, min_work: int = MIN_WORK) -> np.ndarray | None:
    """The float64 row e_L^T N_H ... N_1 [L] through the kernel, or None where numpy should run it
    (``schedule``: the H validated a_l; ``prior`` validated for L; work below ``min_work``: None)."""
    segments = prior.suffix_segments(length)
    alphas = np.array([float(a) for a in schedule if a != 0], dtype=np.float64)  # rollout_row skips a = 0
    if segments is None or alphas.size * length < min_work or not enabled() or unavailable_reason():
        return None
    return run_kernel(length, alphas, FloatOps().recip(prior.counts(length)), segments)


def run_kernel(length: int, alphas: np.ndarray, inv: np.ndarray, segments) -> np.ndarray:
    """The kernel on per-layer weights ``alphas`` [K] in (0, 1], 1 / c ``inv`` [L] and ``segments``
    [(start, end)) covering 0..L-1; raises native.KernelUnavailable where it cannot be built."""
    function = load()
    alphas = np.ascontiguousarray(alphas, dtype=np.float64)
    inv = np.ascontiguousarray(inv, dtype=np.float64)
    keep = None
    if len(segments) > 1:
        keep = np.ones(length)
        keep[[end - 1 for _, end in segments]] = 0.0
    out = np.empty(length)
    status = function(length, alphas.size, alphas.ctypes.data, inv.ctypes.data,
                      None if keep is None else keep.ctypes.data, out.ctypes.data)
    if status != 0:
        raise MemoryError(f"the theory row kernel failed (status {status}) at L = {length}, H = {alphas.size}")
    return out
