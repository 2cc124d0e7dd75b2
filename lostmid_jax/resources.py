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
* ``max_heads``: ALiBi heads (default 4,096).

Raise them for one block of code when a computation really is wanted:

>>> from lostmid_jax import theory
>>> with theory.limits(max_dps=20_000):
...     theory.current_limits().max_dps
20000
>>> theory.current_limits().max_dps
10000

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

    def __post_init__(self):
        object.__setattr__(self, "max_memory_gb", check_float_like("max_memory_gb", self.max_memory_gb, 0, open_min=True))
        object.__setattr__(self, "max_operations", check_float_like("max_operations", self.max_operations, 0, open_min=True))
        object.__setattr__(self, "max_dps", check_int_like("max_dps", self.max_dps, 5))
        object.__setattr__(self, "max_heads", check_int_like("max_heads", self.max_heads, 1))


_CURRENT: contextvars.ContextVar[Limits] = contextvars.ContextVar("lostmid_theory_limits", default=Limits())


def current_limits() -> Limits:
    """The :class:`Limits` in force in this thread / task."""
    return _CURRENT.get()


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
    return f"raise it with `with lostmid_jax.theory.limits({setting}=...):` if this is really wanted"


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
