"""JAX's persistent compilation cache for the toolkit's commands: compile once, reuse across runs.

Every ``lostmid`` experiment command (and ``python sims/*.py``) turns it on
before any work, so a second run of the same configuration loads its
compiled XLA programs from disk instead of compiling them again:

    <cache root>/jax-cache/<machine>

<cache root> is $LOSTMID_CACHE, else $XDG_CACHE_HOME/lostmid_jax, else
~/.cache/lostmid_jax (the fused kernel's builds live there too).

<machine> names the CPU (architecture and a hash of its feature flags): XLA
compiles CPU programs for the exact host, and loads a cached program without
checking its instruction set, so a cache folder shared between different
machines (a home directory on a cluster) must not mix them.

Switches:

    --no-compile-cache              (a command's flag) this run neither reads nor writes the cache
    LOSTMID_COMPILE_CACHE=0         the same for every command (also off, no, false)
    LOSTMID_COMPILE_CACHE_DIR=DIR   put the cache in DIR instead
    JAX_COMPILATION_CACHE_DIR=DIR   JAX's own setting, when given, is respected as is

The cache holds compiled programs only (keyed by the program, the JAX
version and the flags), never results; deleting the folder is always safe.
While it is on, XLA's error-level C++ log lines are hidden (TF_CPP_MIN_LOG_LEVEL=3,
unless set; :func:`quiet_cache_warnings`, also when jax was imported first, and at the import of
lostmid_jax when a cache is already on): jaxlib 0.10 logs a false CPU-feature mismatch (the tuning flags
+prefer-no-gather/+prefer-no-scatter, jax-ml/jax#38445) for every program it
loads from the cache, although the program loads and runs.

Programs that compile in under :data:`MIN_COMPILE_SECONDS` are not stored
(JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS, when set, wins), and the folder
is capped at :data:`MAX_BYTES` (least recently used entries go first). From
Python, :func:`enable` does the same for a session or notebook (call it before
the first computation).
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import platform
import sys

ENV_SWITCH = "LOSTMID_COMPILE_CACHE"
"""Environment variable: 0 / off / no / false turns the cache off."""

ENV_DIR = "LOSTMID_COMPILE_CACHE_DIR"
"""Environment variable: the cache folder (default :func:`default_dir`)."""

MIN_COMPILE_SECONDS = 0.2
"""Programs compiled faster than this are not written (JAX's default is 1 s; the smoke runs compile many
0.2-1 s programs)."""

MAX_BYTES = 2 * 1024**3
"""Size cap of the cache folder (2 GiB)."""

_OFF = {"0", "off", "no", "false"}
_JAX_DIR = "JAX_COMPILATION_CACHE_DIR"
_JAX_MIN_SECONDS = "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"


def cache_root() -> pathlib.Path:
    """The package's cache folder: $LOSTMID_CACHE, else $XDG_CACHE_HOME/lostmid_jax, else ~/.cache/lostmid_jax."""
    if os.environ.get("LOSTMID_CACHE"):
        return pathlib.Path(os.environ["LOSTMID_CACHE"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base).expanduser() / "lostmid_jax"


def machine_tag() -> str:
    """'<architecture>-<12 hex digits>': the CPU architecture and a hash of its model and feature flags
    (/proc/cpuinfo where there is one), so that programs compiled for one CPU never load on another."""
    details = [platform.machine(), platform.processor()]
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key = line.split(":", 1)[0].strip()
                if key in ("flags", "Features", "model name", "CPU part") and line not in details:
                    details.append(line.strip())
    except OSError:
        pass
    digest = hashlib.sha256("\n".join(details).encode()).hexdigest()[:12]
    return f"{platform.machine() or 'cpu'}-{digest}"


def default_dir() -> pathlib.Path:
    """Where the compilation cache goes: $LOSTMID_COMPILE_CACHE_DIR as given, else
    <cache root>/jax-cache/<machine tag>."""
    given = os.environ.get(ENV_DIR)
    return pathlib.Path(given).expanduser() if given else cache_root() / "jax-cache" / machine_tag()


def wanted() -> bool:
    """False when $LOSTMID_COMPILE_CACHE says off (0, off, no, false; any case)."""
    return os.environ.get(ENV_SWITCH, "").strip().lower() not in _OFF


def configure(enabled: bool = True) -> pathlib.Path | None:
    """Turn the cache on (unless ``enabled`` is False or :func:`wanted` says off); returns its folder or None.

    What a command calls first. Imports no jax: before jax is imported it
    sets JAX's environment variables, which jax reads when it starts.
    """
    if not enabled or not wanted():
        disable()
        return None
    return enable()


def enable(directory: str | os.PathLike | None = None) -> pathlib.Path:
    """Use the persistent compilation cache in ``directory`` (default :func:`default_dir`); returns the folder.

    $JAX_COMPILATION_CACHE_DIR, when set, wins over the default (not over
    ``directory``). Works before or after jax is imported (programs already
    compiled in this process are not written back).

    Raises:
      ValueError: naming ``directory`` when it exists and is not a folder, or cannot be created.
    """
    if directory is None and os.environ.get(_JAX_DIR):
        directory = os.environ[_JAX_DIR]
    path = pathlib.Path(directory).expanduser() if directory is not None else default_dir()
    if path.exists() and not path.is_dir():
        raise ValueError(f"directory: {str(path)!r} exists and is not a folder; choose another "
                         f"compilation cache folder ({ENV_DIR}) or set {ENV_SWITCH}=0")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(f"directory: cannot create the compilation cache folder {str(path)!r} ({err}); set "
                         f"{ENV_DIR} to a writable folder or {ENV_SWITCH}=0") from None
    settings = {
        "jax_compilation_cache_dir": str(path),
        "jax_persistent_cache_min_compile_time_secs": float(os.environ.get(_JAX_MIN_SECONDS, MIN_COMPILE_SECONDS)),
        "jax_compilation_cache_max_size": MAX_BYTES,
        "jax_enable_compilation_cache": True,
    }
    _apply(settings)
    quiet_cache_warnings()
    return path


_CPP_LEVEL = "TF_CPP_MIN_LOG_LEVEL"
_QUIET_LEVEL = 3


def quiet_cache_warnings() -> bool:
    """Hide XLA's error-level C++ log lines (the false "could lead to execution errors such as SIGILL"
    message of every program loaded from the cache, module docstring), whether or not jax is imported yet.

    Before jaxlib loads: TF_CPP_MIN_LOG_LEVEL=3, which jaxlib reads once when it starts. After: the same
    level set in jaxlib's logger directly (absl's minimum log level, what jax.config's jax_logging_level
    sets), since the environment is no longer read. A TF_CPP_MIN_LOG_LEVEL the user set is respected as
    is (0 shows every line; a 1 found after jax is imported is jax's own default, not a choice). Python errors (exceptions, Python logging) are untouched. Returns whether
    the level was set here.
    """
    level = os.environ.get(_CPP_LEVEL, "")
    jax_default = level == "1" and "jax" in sys.modules  # importing jax sets 1 when nothing was set
    if level not in ("", str(_QUIET_LEVEL)) and not jax_default:
        return False  # the user's own choice
    os.environ[_CPP_LEVEL] = str(_QUIET_LEVEL)
    if "jaxlib" in sys.modules or "jax" in sys.modules:
        try:
            from jax._src.lib import utils
        except ImportError:  # a jaxlib without the hook: nothing more to do
            return True
        setter = getattr(utils, "absl_set_min_log_level", None)
        if setter is not None:
            setter(_QUIET_LEVEL)
    return True


def quiet_if_cached() -> bool:
    """:func:`quiet_cache_warnings` when a persistent compilation cache is already on (jax's own setting or
    ours); what importing lostmid_jax calls, so that the order of imports does not matter."""
    if active_dir() is None:
        return False
    return quiet_cache_warnings()


def disable() -> None:
    """No persistent compilation cache for this process (jax's in-memory caches are unaffected)."""
    _apply({"jax_enable_compilation_cache": False})


def _apply(settings: dict) -> None:
    """Set JAX config values: through jax.config once jax is imported, else as the environment variables
    jax reads at import (JAX_<NAME>)."""
    if "jax" in sys.modules:
        import jax
        from jax.experimental.compilation_cache import compilation_cache

        for name, value in settings.items():
            jax.config.update(name, value)
        compilation_cache.reset_cache()  # jax decides once, at its first compilation, whether a cache is used
        return
    for name, value in settings.items():
        os.environ[name.upper()] = str(value).lower() if isinstance(value, bool) else str(value)


def active_dir() -> pathlib.Path | None:
    """The folder JAX will use for its persistent cache now (None: off or unset)."""
    if "jax" in sys.modules:
        import jax

        on, folder = jax.config.jax_enable_compilation_cache, jax.config.jax_compilation_cache_dir
    else:
        on = os.environ.get("JAX_ENABLE_COMPILATION_CACHE", "true").lower() not in _OFF
        folder = os.environ.get(_JAX_DIR)
    return pathlib.Path(folder) if on and folder else None


__all__ = ["ENV_DIR", "ENV_SWITCH", "MAX_BYTES", "MIN_COMPILE_SECONDS", "active_dir", "cache_root", "configure",
           "default_dir", "disable", "enable", "machine_tag", "quiet_cache_warnings", "quiet_if_cached", "wanted"]
