"""SIGINT and SIGTERM are never lost: a signal sets a flag that every write and every unit boundary checks.

    with watching():             # handlers for SIGINT and SIGTERM (main thread), the previous ones restored
        ...
        check()                  # raises Interrupted once a signal has come (every atomic write calls it)
    for unit in checked(units):  # an experiment's loop: check() before each unit
        ...
    with shielded():             # writing the record that the run stopped: nothing raises in here
        ...
    exit_code()                  # 128 + the signal's number (130 SIGINT, 143 SIGTERM), None without a signal
    guard_exit()                 # a process's entry point: a signal during interpreter shutdown is kept too

The handler only records the signal; it never raises. An exception raised by a handler lands wherever
Python happens to be: inside a garbage-collection callback it is printed as "Exception ignored in ...
_xla_gc_callback" and dropped (the run went on to finish "done", exit 0), and inside JAX's own code it
can leave the runtime in a state that crashes the process at exit. The run stops instead at the next
:func:`check` (a write, a unit boundary, a step of a loop), and the outermost :func:`watching` raises on
leaving if nothing did. A signal that the process ignores when :func:`watching` starts (``cmd &`` in a
script) stays ignored.
"""

from __future__ import annotations

import contextlib
import signal
import threading

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """A run stopped by SIGINT or SIGTERM (a KeyboardInterrupt, as Ctrl-C always was); ``signum`` says which."""

    def __init__(self, signum: int):
        super().__init__(f"signal {signal.Signals(signum).name}")
        self.signum = signum


_received: int | None = None  # the first signal since the outermost watching() began
_shield = 0
_watching = 0


def received() -> int | None:
    """The number of the first signal received by the last (or current) outermost :func:`watching`, or None."""
    return _received


def exit_code() -> int | None:
    """The conventional exit status of a process stopped by the received signal (128 + its number), or None."""
    return None if _received is None else 128 + _received


def _handle(signum, frame) -> None:
    global _received
    if _received is None:
        _received = signum


def check() -> None:
    """Raise :class:`Interrupted` when a signal has been received while watching (outside :func:`shielded`)."""
    if _received is not None and _watching and not _shield:
        raise Interrupted(_received)


def checked(iterable):
    """The items of ``iterable``, :func:`check` before each: a loop over units stops between two of them."""
    for item in iterable:
        check()
        yield item


@contextlib.contextmanager
def shielded():
    """A block in which :func:`check` does not raise (a signal is still recorded)."""
    global _shield
    _shield += 1
    try:
        yield
    finally:
        _shield -= 1


@contextlib.contextmanager
def watching():
    """Handle SIGINT and SIGTERM by the flag for the block (the outermost one in the main thread; nested
    ones and other threads change nothing). On leaving without an exception, a received signal raises."""
    global _received, _watching
    if threading.current_thread() is not threading.main_thread() or _watching:
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in SIGNALS}
    _received, _watching = None, 1
    for sig, handler in previous.items():
        if handler is not signal.SIG_IGN:
            signal.signal(sig, _handle)
    try:
        yield
        check()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
        _watching = 0


def guard_exit() -> None:
    """For the rest of the process, SIGINT and SIGTERM only set the flag (:func:`watching` then restores this
    handler, not Python's), and the process exits 128 + the signal's number when one came after the command
    returned: during interpreter shutdown (JAX's own exit callbacks), where Python's handler would print
    "Exception ignored in atexit callback" and exit 0. Call it first thing in a process's entry point, before
    jax is imported: exit callbacks run last-registered first, so this one runs after JAX's. A signal the
    process ignores stays ignored. Main thread only."""
    import atexit
    import os
    import sys

    if threading.current_thread() is not threading.main_thread():
        return
    for sig in SIGNALS:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, _handle)

    def leave() -> None:
        if _received is not None:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    pass
            os._exit(128 + _received)

    atexit.register(leave)


__all__ = ["Interrupted", "SIGNALS", "check", "checked", "exit_code", "guard_exit", "received", "shielded",
           "watching"]
