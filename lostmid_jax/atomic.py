"""The one atomic writer of the package: a file is written under a fresh temporary name beside it, then renamed.

A reader (or a kill) sees the old file or the new one, never half of one.
The temporary file is created by :func:`tempfile.mkstemp` in the target's
directory: a random name opened with O_CREAT | O_EXCL | O_NOFOLLOW, so a
name planted in a run directory someone sent (``.report.html.tmp ->
~/.bashrc``) is never opened, let alone written through; the final
``os.replace`` renames onto the name itself (a symlink there is replaced, its
target untouched).

    write_atomic(path, "text")                          # .path.<random>.tmp, then renamed
    write_atomic(path, text, durable=True)              # fsynced file and directory
    with replacing(path) as f:                          # a library writes the file object itself
        fig.savefig(f, format="png")
    add_guard(check)                                    # check(path) before every write (runs/ adds two)

It sits below every package (it imports none of lostmid_jax), so compiled-kernel
builders and run directories share it; run directories add their guards when
:mod:`lostmid_jax.runs` is imported (a received SIGINT or SIGTERM stops the
run, the file is listed in the run's record before it exists).
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import tempfile

TEMPORARY_SUFFIX = ".tmp"
"""Every temporary name ends so (``.<name>.<random>.tmp``); :func:`is_temporary` recognizes them."""


def _file_mode() -> int:
    """0o666 less the process's umask: the mode ``open(path, "w")`` would give (mkstemp's own is 0o600)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


_MODE = _file_mode()

_guards: list = []  # called in order with each path before it is written (add_guard)


def add_guard(guard) -> None:
    """Call ``guard(path)`` (a pathlib.Path) before every write, after the guards added before it; a guard
    refuses a write by raising. Adding the same guard again changes nothing."""
    if guard not in _guards:
        _guards.append(guard)


def is_temporary(name: str, final: str | None = None) -> bool:
    """True when file ``name`` is a temporary of this writer (of the file ``final`` when given)."""
    prefix = f".{final}." if final is not None else "."
    return name.startswith(prefix) and name.endswith(TEMPORARY_SUFFIX)


def remove_temporaries(directory) -> list[str]:
    """Remove the temporaries this writer left in ``directory`` (a killed process's ``.<name>.<random>.tmp``;
    call it only while no other process writes there); the names removed."""
    removed = []
    for entry in sorted(pathlib.Path(directory).iterdir()):
        if is_temporary(entry.name) and not entry.is_dir():
            with contextlib.suppress(FileNotFoundError):
                entry.unlink()  # a symlink itself, never its target
                removed.append(entry.name)
    return removed


def _fsync_directory(directory: pathlib.Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)  # the rename itself reaches the disk
    finally:
        os.close(fd)


@contextlib.contextmanager
def replacing(path, *, durable: bool = False):
    """Yield a binary file object open on a new temporary file beside ``path``; once the block
    finishes, rename it onto ``path`` (a failure in the block removes it and leaves ``path`` as it was).

    Every write first calls the guards (:func:`add_guard`): with :mod:`lostmid_jax.runs` imported, a
    received SIGINT or SIGTERM stops the run there (runs.stop.check) and ``path`` is listed in the record
    of the run directory being written (runs.ledger.note).

    An OSError (no space left, file too large, ...) names ``path``.

    Args:
      path: the final file.
      durable: fsync the written file before the rename and the directory after it.
    """
    path = pathlib.Path(path)
    for guard in _guards:  # before anything is written
        guard(path)
    name = None
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX, dir=path.parent)
        os.fchmod(fd, _MODE)
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.replace(name, path)
    except BaseException as err:
        with contextlib.suppress(OSError, TypeError):
            os.unlink(name)
        if isinstance(err, OSError) and err.filename is None:  # a write through the file object names no file
            raise OSError(err.errno, err.strerror or str(err), str(path)) from err
        raise
    if durable:
        _fsync_directory(path.parent)


def write_atomic(path, data: str | bytes, *, durable: bool = False) -> pathlib.Path:
    """Write ``data`` (text as given, UTF-8, no newline translation: CSV keeps its \\r\\n; or bytes)
    to a fresh temporary file beside ``path`` (:func:`replacing`), then rename it into place; returns ``path``."""
    path = pathlib.Path(path)
    with replacing(path, durable=durable) as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


__all__ = ["TEMPORARY_SUFFIX", "add_guard", "is_temporary", "remove_temporaries", "replacing", "write_atomic"]
