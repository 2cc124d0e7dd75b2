"""Compile, cache and register the fused CPU attention kernel (attention.cc, tiles.h).

The shared library is built on first use by :mod:`lostmid_jax.native` (the
machine's C++ compiler, a cache keyed by the sources, compiler, flags, CPU and
here jaxlib's version, atomic writes, a SHA-256 seal checked before every
load) against the XLA FFI headers that jaxlib ships. Flags: -O3 -ffast-math
(vectorized reductions; the kernel never forms an infinity: its
exponentials clamp their arguments, tiles.h ExpNonPositive; compiled and
linked apart, so no crtfastmath.o sets flush-to-zero process-wide) and the
flags of the variant chosen from
the processor's flags (ISA_FLAGS, :func:`isa`): AVX-512 tiles where the CPU
has AVX-512, AVX2 tiles where it has only AVX2 (logged at INFO;
$LOSTMID_FUSED_CPU_ISA forces one the CPU supports). A library that cannot
be built or loaded, or lacks the kernel's symbols, makes the kernel
unavailable (callers with attn_impl "auto" fall back to XLA's attention),
never a crash.
"""

from __future__ import annotations

import ctypes
import functools
import logging
import os
import pathlib
import platform

import jax
import jaxlib

from ... import native
from ...native import KernelUnavailable, check_library, compiler, seal_path  # noqa: F401  (this kernel's API)

SOURCE = pathlib.Path(__file__).with_name("attention.cc")
HEADERS = (pathlib.Path(__file__).with_name("tiles.h"),)
TARGETS = {"lostmid_attention_fwd": "LostmidAttentionForward",
           "lostmid_attention_bwd": "LostmidAttentionBackward"}
_LOG = logging.getLogger(__name__)


ISA_FLAGS = {
    "avx512": ["-march=native", "-mprefer-vector-width=512", "-DLOSTMID_TILE=16", "-DLOSTMID_COLS=4",
               "-DLOSTMID_SPAN=1"],
    "avx2": ["-march=native", "-mno-avx512f", "-mprefer-vector-width=256", "-DLOSTMID_TILE=8", "-DLOSTMID_COLS=2",
             "-DLOSTMID_SPAN=2"],
    "native": ["-march=native"],
    "arm": ["-mcpu=native"],
}
"""Flags of each kernel variant (tiles.h: LOSTMID_TILE keys per vector, LOSTMID_COLS accumulated columns,
LOSTMID_SPAN tiles per step of the score loops: 2 on AVX2, where one tile's 4 accumulators wait on the FMA
latency; 1 on AVX-512, measured faster there).
avx2 leaves out AVX-512 even where the CPU has it, so it runs (and is tested) on AVX-512 machines too."""
ISA_ENV = "LOSTMID_FUSED_CPU_ISA"


def cpu_flags() -> frozenset[str]:
    """The processor's feature flags (/proc/cpuinfo "flags" or "Features"; empty when unreadable)."""
    try:
        text = pathlib.Path("/proc/cpuinfo").read_text()
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith(("flags", "Features")):
            return frozenset(line.partition(":")[2].split())
    return frozenset()


def isa() -> str:
    """The kernel variant built here, a key of ISA_FLAGS: chosen from :func:`cpu_flags` (avx512 with
    AVX-512 F/VL, avx2 with AVX2 and FMA, else native), or $LOSTMID_FUSED_CPU_ISA when set."""
    have = cpu_flags()
    if platform.machine() not in ("x86_64", "AMD64"):
        detected = "arm" if platform.machine() in ("aarch64", "arm64") else "native"
    elif {"avx512f", "avx512vl"} <= have:
        detected = "avx512"
    elif {"avx2", "fma"} <= have:
        detected = "avx2"
    else:
        detected = "native"
    chosen = os.environ.get(ISA_ENV, "").strip() or detected
    if chosen not in ISA_FLAGS:
        raise KernelUnavailable(f"${ISA_ENV} must be one of {sorted(ISA_FLAGS)}, got {chosen!r}")
    needs = {"avx512": {"avx512f", "avx512vl"}, "avx2": {"avx2", "fma"}}.get(chosen, set())
    if not needs <= have:
        raise KernelUnavailable(f"${ISA_ENV}={chosen} needs the CPU flags {sorted(needs)}, which this CPU lacks")
    return chosen


def flags() -> list[str]:
    """Compiler flags: the common ones, then ISA_FLAGS[isa()] (the library is built for the CPU it runs on)."""
    return ["-O3", "-std=c++17", "-fPIC", "-ffast-math", "-w", f"-I{jax.ffi.include_dir()}", *ISA_FLAGS[isa()]]


def library_path() -> pathlib.Path:
    """Where the library for this source, compiler, jaxlib and CPU lives (built or not)."""
    return native.library_path("attention", (SOURCE, *HEADERS), flags(), jaxlib.__version__)


def build() -> pathlib.Path:
    """Compile the library unless the cache has it, intact (:func:`check_library`); returns its path."""
    return native.build(library_path(), SOURCE, flags(), "fused_cpu attention kernel")


@functools.cache
def load() -> ctypes.CDLL:
    """Build (if needed), load and register the kernel's FFI targets on the CPU platform (logged at INFO)."""
    path = library_path()
    if path.exists():
        _LOG.info("fused_cpu attention kernel: loading the cached library %s", path)
    else:
        _LOG.info("fused_cpu attention kernel: compiling %s with %s into %s", SOURCE.name, compiler(), path)
    _LOG.info("fused_cpu attention kernel: the %s variant (%s)", isa(), " ".join(ISA_FLAGS[isa()]))
    lib, functions = native.open_library(build(), TARGETS.values(), "fused_cpu attention kernel")
    for target, symbol in TARGETS.items():
        jax.ffi.register_ffi_target(target, jax.ffi.pycapsule(functions[symbol]), platform="cpu")
    return lib


@functools.cache
def unavailable_reason() -> str | None:
    """None when the kernel is usable here, else why not (no CPU backend, no compiler, build error)."""
    if jax.default_backend() != "cpu":
        return f"the default JAX backend is {jax.default_backend()!r}, not 'cpu'"
    try:
        load()
    except (KernelUnavailable, OSError) as err:
        return str(err)
    return None


def available() -> bool:
    """True when the fused CPU kernel can be used in this process."""
    return unavailable_reason() is None
