"""Compile, cache and register the fused CPU attention kernel (attention.cc, tiles.h).

The shared library is built on first use with the machine's C++ compiler
($CXX, else g++) against the XLA FFI headers that jaxlib ships. Flags:
-O3 -ffast-math (vectorized reductions; the kernel never
forms an infinity: its exponentials clamp their arguments, tiles.h ExpNonPositive) and the flags of
the variant chosen from the processor's flags (ISA_FLAGS, :func:`isa`):
AVX-512 tiles where the CPU has AVX-512, AVX2 tiles where it has only AVX2
(logged at INFO; $LOSTMID_FUSED_CPU_ISA forces one the CPU supports). It is compiled
and linked in two steps so that -ffast-math never adds crtfastmath.o, which
would set flush-to-zero for the whole process. The library is cached under
$LOSTMID_CACHE (default ~/.cache/lostmid_jax), keyed by a hash of the
sources, the compiler, the flags, jaxlib's version and this CPU. A build
writes a temp file and renames it, so a concurrent process never loads a
half-written library, then seals it: ``<library>.sha256`` holds its SHA-256,
as checkpoints' manifests do. A cached library is loaded only if it matches
its seal: a truncated or altered one (dlopen of a truncated library crashes
the process with SIGBUS) is rebuilt, with a warning; one that cannot be
loaded or lacks the kernel's symbols makes the kernel unavailable (callers
with attn_impl "auto" fall back to XLA's attention), never a crash.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import logging
import os
import pathlib
import platform
import shutil
import subprocess
import tempfile

import jax
import jaxlib

from ...atomic import TEMPORARY_SUFFIX, write_atomic

SOURCE = pathlib.Path(__file__).with_name("attention.cc")
HEADERS = (pathlib.Path(__file__).with_name("tiles.h"),)
TARGETS = {"lostmid_attention_fwd": "LostmidAttentionForward",
           "lostmid_attention_bwd": "LostmidAttentionBackward"}
_LOG = logging.getLogger(__name__)


class KernelUnavailable(RuntimeError):
    """The fused kernel cannot be built or loaded here (the reason is the message)."""


def compiler() -> str:
    """The C++ compiler: $CXX, else g++ or c++ on the PATH."""
    for name in (os.environ.get("CXX"), "g++", "c++"):
        if name and shutil.which(name):
            return shutil.which(name)
    raise KernelUnavailable("no C++ compiler found (set $CXX or install g++)")


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


def _cpu_id() -> str:
    try:
        text = pathlib.Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor()
    lines = [ln for ln in text.splitlines() if ln.startswith(("model name", "flags", "Features"))]
    return "\n".join(sorted(set(lines)))


@functools.cache
def _compiler_version(cxx: str) -> str:
    return subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout


def cache_dir() -> pathlib.Path:
    """<the package's cache root (compile_cache.cache_root)>/kernels."""
    from ...compile_cache import cache_root

    return cache_root() / "kernels"


def library_path() -> pathlib.Path:
    """Where the library for this source, compiler, jaxlib and CPU lives (built or not)."""
    cxx = compiler()
    sources = [f.read_text() for f in (SOURCE, *HEADERS)]
    key = "\n".join([*sources, cxx, _compiler_version(cxx), " ".join(flags()), jaxlib.__version__, _cpu_id()])
    return cache_dir() / f"attention-{hashlib.sha256(key.encode()).hexdigest()[:16]}.so"


def seal_path(path: pathlib.Path) -> pathlib.Path:
    """``<library>.sha256``: the SHA-256 the library had when it was built."""
    return path.with_name(path.name + ".sha256")


def _sha256(path: pathlib.Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def check_library(path: pathlib.Path) -> str | None:
    """None when the cached library ``path`` is a regular file matching its seal, else what is wrong."""
    seal = seal_path(path)
    if path.is_symlink() or not path.is_file():
        return "is not a regular file"
    try:
        recorded = seal.read_text().split()[0] if seal.is_file() else None
    except (OSError, IndexError, UnicodeDecodeError):
        recorded = ""
    if recorded is None:
        return f"has no {seal.name} (built by an older version, or its build was interrupted)"
    if recorded != _sha256(path):
        return f"does not match its SHA-256 in {seal.name} (truncated or altered)"
    return None


def build() -> pathlib.Path:
    """Compile the library unless the cache has it, intact (:func:`check_library`); returns its path."""
    path = library_path()
    if path.exists() or path.is_symlink():
        problem = check_library(path)
        if problem is None:
            return path
        _LOG.warning("fused_cpu attention kernel: the cached library %s %s; rebuilding it", path, problem)
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    built = _compile(path)
    write_atomic(seal_path(path), f"{_sha256(built)}  {path.name}\n")
    os.replace(built, path)
    return path


def _compile(path: pathlib.Path) -> pathlib.Path:
    """Compile and link the library to a temporary file beside ``path``; returns that file."""
    with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
        obj, out = pathlib.Path(tmp) / "attention.o", pathlib.Path(tmp) / path.name
        # Compile and link apart: -ffast-math at link time would add crtfastmath.o, whose
        # constructor sets flush-to-zero / denormals-are-zero for the whole process.
        cxx = compiler()
        for cmd in ([cxx, *flags(), "-c", str(SOURCE), "-o", str(obj)], [cxx, "-shared", str(obj), "-o", str(out)]):
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                raise KernelUnavailable(f"compiling {SOURCE.name} failed ({' '.join(cmd)}):\n{proc.stderr[-4000:]}")
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX, dir=path.parent)
        os.close(fd)
        os.replace(out, name)
    return pathlib.Path(name)


@functools.cache
def load() -> ctypes.CDLL:
    """Build (if needed), load and register the kernel's FFI targets on the CPU platform (logged at INFO)."""
    path = library_path()
    if path.exists():
        _LOG.info("fused_cpu attention kernel: loading the cached library %s", path)
    else:
        _LOG.info("fused_cpu attention kernel: compiling %s with %s into %s", SOURCE.name, compiler(), path)
    _LOG.info("fused_cpu attention kernel: the %s variant (%s)", isa(), " ".join(ISA_FLAGS[isa()]))
    built = build()
    try:
        lib = ctypes.CDLL(str(built))
        functions = {target: getattr(lib, symbol) for target, symbol in TARGETS.items()}
    except (OSError, AttributeError) as err:
        _LOG.warning("fused_cpu attention kernel: cannot use %s (%s); delete it to rebuild", built, err)
        raise KernelUnavailable(f"the library {built} cannot be used ({err}); delete it to rebuild it") from None
    for target, function in functions.items():
        jax.ffi.register_ffi_target(target, jax.ffi.pycapsule(function), platform="cpu")
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
