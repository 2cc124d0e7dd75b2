"""Compile a C++ source into a shared library on first use: cached, keyed, sealed (no jax).

The compiled kernels (lostmid_jax/kernels/fused_cpu, the float64 theory row of
lostmid_jax/theory/native_row.py) share this builder:

    path = library_path("attention", (source, *headers), flags, extra)   # where it lives, built or not
    path = build(path, source, flags, "fused_cpu attention kernel")      # compiled unless cached intact
    lib, functions = open_library(path, ["Symbol", ...], "fused_cpu attention kernel")

The compiler is $CXX, else g++ or c++ on the PATH. The library is cached
under <cache root>/kernels (:func:`lostmid_jax.compile_cache.cache_root`),
named by a hash of the sources, the compiler and its version, the flags,
``extra`` (e.g. jaxlib's version) and this CPU's model and flags. A build
compiles and links in two steps (so -ffast-math at compile time never adds
crtfastmath.o, which would set flush-to-zero for the whole process), writes a
temp file and renames it, so a concurrent process never loads a half-written
library, then seals it: ``<library>.sha256`` holds its SHA-256, as
checkpoints' manifests do. A cached library is used only if it matches its
seal: a truncated or altered one (dlopen of a truncated library crashes the
process with SIGBUS) is rebuilt, with a warning. Every failure is a
:class:`KernelUnavailable` naming the reason; callers fall back, never crash.
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

from .atomic import TEMPORARY_SUFFIX, write_atomic

_LOG = logging.getLogger(__name__)


class KernelUnavailable(RuntimeError):
    """A compiled kernel cannot be built or loaded here (the reason is the message)."""


def compiler() -> str:
    """The C++ compiler: $CXX, else g++ or c++ on the PATH."""
    for name in (os.environ.get("CXX"), "g++", "c++"):
        if name and shutil.which(name):
            return shutil.which(name)
    raise KernelUnavailable("no C++ compiler found (set $CXX or install g++)")


def cpu_id() -> str:
    """This CPU's model name and feature flags (/proc/cpuinfo; else platform.processor())."""
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
    from .compile_cache import cache_root

    return cache_root() / "kernels"


def library_path(stem: str, sources, flags: list[str], extra: str = "") -> pathlib.Path:
    """``<cache_dir>/<stem>-<16 hex digits>.so``: the key hashes ``sources`` (their text), the compiler, its
    version, ``flags``, ``extra`` and :func:`cpu_id`; the file may not exist yet."""
    cxx = compiler()
    texts = [pathlib.Path(f).read_text() for f in sources]
    key = "\n".join([*texts, cxx, _compiler_version(cxx), " ".join(flags), extra, cpu_id()])
    return cache_dir() / f"{stem}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.so"


def seal_path(path: pathlib.Path) -> pathlib.Path:
    """``<library>.sha256``: the SHA-256 the library had when it was built."""
    return path.with_name(path.name + ".sha256")


def sha256(path: pathlib.Path) -> str:
    """The SHA-256 of the file at ``path`` (hex)."""
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
    if recorded != sha256(path):
        return f"does not match its SHA-256 in {seal.name} (truncated or altered)"
    return None


def build(path: pathlib.Path, source: pathlib.Path, flags: list[str], label: str) -> pathlib.Path:
    """Compile ``source`` with ``flags`` into ``path`` (from :func:`library_path`) unless the cache has it,
    intact (:func:`check_library`); returns ``path``. ``label`` names the kernel in the log."""
    if path.exists() or path.is_symlink():
        problem = check_library(path)
        if problem is None:
            return path
        _LOG.warning("%s: the cached library %s %s; rebuilding it", label, path, problem)
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    built = _compile(path, source, flags)
    write_atomic(seal_path(path), f"{sha256(built)}  {path.name}\n")
    os.replace(built, path)
    return path


def _compile(path: pathlib.Path, source: pathlib.Path, flags: list[str]) -> pathlib.Path:
    """Compile and link the library to a temporary file beside ``path``; returns that file."""
    with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
        obj, out = pathlib.Path(tmp) / f"{source.stem}.o", pathlib.Path(tmp) / path.name
        # Compile and link apart: -ffast-math at link time would add crtfastmath.o, whose
        # constructor sets flush-to-zero / denormals-are-zero for the whole process.
        cxx = compiler()
        for cmd in ([cxx, *flags, "-c", str(source), "-o", str(obj)], [cxx, "-shared", str(obj), "-o", str(out)]):
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                raise KernelUnavailable(f"compiling {source.name} failed ({' '.join(cmd)}):\n{proc.stderr[-4000:]}")
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX, dir=path.parent)
        os.close(fd)
        os.replace(out, name)
    return pathlib.Path(name)


def open_library(path: pathlib.Path, symbols, label: str) -> tuple[ctypes.CDLL, dict]:
    """Load the built library ``path`` and look up ``symbols``: (the CDLL, {symbol: its function}).

    A library that cannot be loaded or lacks a symbol is logged (a warning) and raised as
    :class:`KernelUnavailable` saying to delete it, never an OSError or AttributeError.
    """
    try:
        lib = ctypes.CDLL(str(path))
        return lib, {symbol: getattr(lib, symbol) for symbol in symbols}
    except (OSError, AttributeError) as err:
        _LOG.warning("%s: cannot use %s (%s); delete it to rebuild", label, path, err)
        raise KernelUnavailable(f"the library {path} cannot be used ({err}); delete it to rebuild it") from None
