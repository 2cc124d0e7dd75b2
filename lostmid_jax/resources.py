"""Resource limits of the theory functions: refuse, before any work, what cannot finish or fit.

Every public theory function estimates from its arguments the memory it will
hold and the work it will do (:mod:`._costs`) and raises a ValueError naming
the arguments and the limit when an estimate is over it, so a huge length,
depth, head count or precision answers at once instead of hanging, exhausting
memory or aborting inside FLINT. The limits (defaults in :class:`Limits`):

* ``max_memory_gb``: memory a call may hold (default 16 GB, or 3/4 of the
  machine's memory if that is less);
* ``max_operations``: estimated elementary operations, about 1 ns each on one
  core (default 1e11, roughly a minute or two); a float64 row costs ~10-100
  per entry and layer, a big-number (mpmath / arb / Fraction) operation
  thousands and more, growing with the digits;
* ``max_dps``: decimal digits of the mpmath / arb backends (default 10,000);
* ``max_heads``: ALiBi heads (default 4,096);
* ``max_depth``: layers of a model built from a config (a DecoderConfig, an
  HF config.json; default 4,096);
* ``max_steps``: optimizer steps of one training run (default 10,000,000).

A model's parameters count against ``max_memory_gb`` (4 bytes each to build
it, 16 to train it: weights, gradients and two Adam moments), before anything
is built (:func:`check_model_size`); a result row of an experiment costs about
:data:`ROW_OPERATIONS` (the Python that builds and writes it).

Raise them for one block of code when a computation really is wanted:

>>> from lostmid_jax import theory
>>> with theory.limits(max_dps=20_000):
...     theory.current_limits().max_dps
20000
>>> theory.current_limits().max_dps
10000

From the command line, ``--limits max_operations=1e13,max_depth=20000`` (every
experiment and ``lostmid theory``) or the environment variable
``LOSTMID_LIMITS`` (same text) set them for the whole process.

The arb backend's precision is never allowed past the machine's memory,
whatever the limits: FLINT aborts the process when an allocation fails.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import os

from .validation import check_float_like, check_int_like

_GB = 1e9


def physical_memory_bytes() -> float:
    """Bytes of RAM of this machine (64 GB if the OS does not say)."""
    try:
        return float(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return 64 * _GB


def peak_resident_bytes() -> float:
    """Bytes of this process's peak resident set: VmHWM of /proc/self/status (Linux), else ru_maxrss.

    Not ru_maxrss where VmHWM exists: Linux carries the launching process's peak into the child's
    ru_maxrss across fork/vfork + exec (exec keeps the old address space's high-water mark), so a run
    started from a 2 GB process (a long pytest session) reported at least 2 GB whatever it held itself.
    VmHWM is the high-water mark of the address space the run got from exec.
    """
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return float(line.split()[1]) * 1024  # kB
    except OSError:
        pass
    import resource
    import sys

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return float(peak if sys.platform == "darwin" else peak * 1024)  # bytes on macOS, KiB elsewhere


DEFAULT_MEMORY_GB = min(16.0, 0.75 * physical_memory_bytes() / _GB)
"""Default ``max_memory_gb``: 16 GB, or 3/4 of this machine's memory if less."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class Limits:
    """The resource limits in force (see the module docstring).

    Attributes:
      max_memory_gb: memory one call may hold, in GB (1e9 bytes), > 0.
      max_operations: estimated elementary operations (~1 ns each) one call
        may do, > 0.
      max_dps: largest ``dps`` of the mpmath / arb backends, >= 5.
      max_heads: largest ALiBi ``n_heads``, >= 1.
    """

    max_memory_gb: float = DEFAULT_MEMORY_GB
    max_operations: float = 1e11
    max_dps: int = 10_000
    max_heads: int = 4096
    max_depth: int = 4096
    max_steps: int = 10_000_000

    def __post_init__(self):
        object.__setattr__(self, "max_memory_gb", check_float_like("max_memory_gb", self.max_memory_gb, 0, open_min=True))
        object.__setattr__(self, "max_operations", check_float_like("max_operations", self.max_operations, 0, open_min=True))
        object.__setattr__(self, "max_dps", check_int_like("max_dps", self.max_dps, 5))
        object.__setattr__(self, "max_heads", check_int_like("max_heads", self.max_heads, 1))
        object.__setattr__(self, "max_depth", check_int_like("max_depth", self.max_depth, 1))
        object.__setattr__(self, "max_steps", check_int_like("max_steps", self.max_steps, 1))


ENV_LIMITS = "LOSTMID_LIMITS"
"""The environment variable whose text (``key=value,...``) changes the default limits of a process."""

ROW_OPERATIONS = 1e6
"""Operations (~1 ns) one result row of a sweep costs in Python: building, summarizing and writing it
(measured: depth_sweep, 25,600 rows in 24 s on one core, ~1 ms each)."""

_CURRENT: contextvars.ContextVar[Limits | None] = contextvars.ContextVar("lostmid_theory_limits", default=None)
_FROM_ENV: dict = {}


def parse_limits(text: str, name: str = "--limits") -> dict:
    """{field: value} of ``key=value,key=value`` (keys: the fields of :class:`Limits`); ValueError naming ``name``."""
    fields = {f.name: f.type for f in dataclasses.fields(Limits)}
    out = {}
    for part in (p.strip() for p in str(text).split(",")):
        if not part:
            continue
        key, sep, value = part.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or key not in fields:
            raise ValueError(f"{name} must be key=value pairs with keys among {sorted(fields)}, got {part!r}")
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"{name}: {key} must be a number, got {value!r}") from None
        out[key] = int(number) if fields[key] in ("int", int) and number.is_integer() else number
    try:
        Limits(**out)
    except ValueError as err:
        raise ValueError(f"{name}: {err}") from None
    return out


def _env_limits() -> Limits:
    text = os.environ.get(ENV_LIMITS, "")
    if text not in _FROM_ENV:
        _FROM_ENV.clear()
        _FROM_ENV[text] = Limits(**parse_limits(text, ENV_LIMITS))
    return _FROM_ENV[text]


def current_limits() -> Limits:
    """The :class:`Limits` in force in this thread / task (the defaults changed by ``LOSTMID_LIMITS``)."""
    value = _CURRENT.get()
    return value if value is not None else _env_limits()


def set_limits(text: str, name: str = "--limits") -> Limits:
    """Change the limits of this process (its current context) from ``key=value,...`` text (the
    ``--limits`` flag); returns them."""
    new = dataclasses.replace(current_limits(), **parse_limits(text, name))
    _CURRENT.set(new)
    return new


@contextlib.contextmanager
def limits(**changes):
    """Run a block under changed limits (keyword names of :class:`Limits`); restored on exit.

    >>> with limits(max_operations=1e13) as lim:
    ...     lim.max_operations
    10000000000000.0
    """
    unknown = set(changes) - {f.name for f in dataclasses.fields(Limits)}
    if unknown:
        raise ValueError(f"limits() takes {[f.name for f in dataclasses.fields(Limits)]}, got {sorted(unknown)}")
    new = dataclasses.replace(current_limits(), **changes)
    token = _CURRENT.set(new)
    try:
        yield new
    finally:
        _CURRENT.reset(token)


def _how(setting: str) -> str:
    return (f"raise it with --limits {setting}=... (or {ENV_LIMITS}={setting}=...; in Python "
            f"`with lostmid_jax.theory.limits({setting}=...):`) if this is really wanted")


def check_memory(what: str, nbytes: float, *, hard: bool = False) -> None:
    """Refuse a call whose estimated memory ``nbytes`` is over ``max_memory_gb``.

    Args:
      what: the arguments that set the size, as the user wrote them
        (e.g. "length=10**12, depth=3").
      nbytes: the estimate.
      hard: also refuse past the machine's memory whatever the limit (for
        FLINT, which aborts instead of raising).
    """
    limit = current_limits().max_memory_gb
    if nbytes > limit * _GB:
        raise ValueError(f"{what}: needs about {nbytes / _GB:.3g} GB of memory, over the limit max_memory_gb={limit:g}; "
                         f"use smaller arguments or {_how('max_memory_gb')}")
    if hard and nbytes > physical_memory_bytes():
        raise ValueError(f"{what}: needs about {nbytes / _GB:.3g} GB of memory, more than this machine has "
                         f"({physical_memory_bytes() / _GB:.3g} GB); FLINT would abort the process")


def check_operations(what: str, operations: float) -> None:
    """Refuse a call whose estimated work is over ``max_operations`` (~1 ns each)."""
    limit = current_limits().max_operations
    if operations > limit:
        raise ValueError(f"{what}: about {operations:.3g} operations (~{operations * 1e-9:.3g} s), over the limit "
                         f"max_operations={limit:g}; use smaller arguments or {_how('max_operations')}")


def check_budget(what: str, *, nbytes: float, operations: float, hard: bool = False) -> None:
    """:func:`check_memory` then :func:`check_operations`."""
    check_memory(what, nbytes, hard=hard)
    check_operations(what, operations)


def check_max_dps(dps: int) -> int:
    """``dps`` (already an int >= 5) if it is at most ``max_dps``."""
    limit = current_limits().max_dps
    if dps > limit:
        raise ValueError(f"dps={dps} is over the limit max_dps={limit} digits; {_how('max_dps')}")
    return dps


def check_max_heads(n_heads: int) -> int:
    """ALiBi ``n_heads`` (already an int >= 1) if it is at most ``max_heads``."""
    limit = current_limits().max_heads
    if n_heads > limit:
        raise ValueError(f"n_heads={n_heads} is over the limit max_heads={limit}; {_how('max_heads')}")
    return n_heads


def check_max_depth(what: str, depth: int) -> int:
    """``depth`` (already an int) if it is at most ``max_depth``."""
    limit = current_limits().max_depth
    if depth > limit:
        raise ValueError(f"{what}: depth={depth} layers is over the limit max_depth={limit}; {_how('max_depth')}")
    return depth


def check_max_steps(steps: int) -> int:
    """Training ``steps`` (already an int) if at most ``max_steps``."""
    limit = current_limits().max_steps
    if steps > limit:
        raise ValueError(f"steps={steps} is over the limit max_steps={limit}; {_how('max_steps')}")
    return steps


def check_model_size(what: str, depth: int, parameters: float, *, bytes_per_parameter: float = 4) -> None:
    """Refuse, before anything is built, a model over ``max_depth`` or whose ``parameters`` (times
    ``bytes_per_parameter``: 4 to hold float32 weights, 16 to train them with Adam) exceed ``max_memory_gb``."""
    check_max_depth(what, depth)
    check_memory(f"{what} ({parameters:.3g} parameters)", parameters * bytes_per_parameter)
