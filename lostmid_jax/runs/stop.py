"""SIGINT and SIGTERM are never lost: a signal sets a flag that every write and every unit boundary checks.

    with watching():             # handlers for SIGINT and SIGTERM (main thread), the previous ones restored
        ...
        check()                  # raises Interrupted once a signal has come (every atomic write calls it)
    with shielded():             # writing the record that the run stopped: nothing raises in here
        ...
    exit_code()                  # 128 + the signal's number (130 SIGINT, 143 SIGTERM), None without a signal

The handler records the signal first. It then raises :class:`Interrupted` at once where Python can take
it (the first time only: a second signal does not cut short the cleanup the first began), so that a long
loop stops promptly, but never inside a garbage-collection callback or a finalizer:
an exception there is printed as "Exception ignored in ... _xla_gc_callback" and dropped (JAX registers
such a callback), and the run would go on to finish "done". Either way the flag stays set, so the next
write or unit boundary raises, and the outermost :func:`watching` raises on leaving if nothing did.
A signal that the process ignores when :func:`watching` starts (``cmd &`` in a script) stays ignored.
"""

from __future__ import annotations

import contextlib
import gc
import signal
import threading

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """A run stopped by SIGINT or SIGTERM (a KeyboardInterrupt, as Ctrl-C always was); ``signum`` says which."""

    def __init__(self, signum: int):
        super().__init__(f"signal {signal.Signals(signum).name}")
        self.signum = signum


_received: int | None = None  # the first signal since the outermost watching() began
_raised = False  # the handler raised once already: later signals only keep the flag (cleanup runs undisturbed)
_shield = 0
_watching = 0


def received() -> int | None:
    """The number of the first signal received by the last (or current) outermost :func:`watching`, or None."""
    return _received


def exit_code() -> int | None:
    """The conventional exit status of a process stopped by the received signal (128 + its number), or None."""
    return None if _received is None else 128 + _received


def _unraisable_here(frame) -> bool:
    """True when ``frame`` runs (below) a gc callback or a finalizer, where a raised exception is dropped."""
    callbacks = {getattr(getattr(cb, "__func__", cb), "__code__", None) for cb in gc.callbacks}
    while frame is not None:
        code = frame.f_code
        if code in callbacks or code.co_name == "__del__" or (
                code.co_name == "__call__" and code.co_filename.endswith("weakref.py")):
            return True
        frame = frame.f_back
    return False


def _handle(signum, frame) -> None:
    global _received, _raised
    if _received is None:
        _received = signum
    if _raised or _shield or _unraisable_here(frame):
        return  # the flag is set: the next check() raises
    _raised = True
    raise Interrupted(_received)


def check() -> None:
    """Raise :class:`Interrupted` when a signal has been received while watching (outside :func:`shielded`)."""
    if _received is not None and _watching and not _shield:
        raise Interrupted(_received)


@contextlib.contextmanager
def shielded():
    """A block that a signal does not interrupt (it is still recorded)."""
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
    _received, _raised, _watching = None, False, 1
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


__all__ = ["Interrupted", "SIGNALS", "check", "exit_code", "received", "shielded", "watching"]
