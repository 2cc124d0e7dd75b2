"""The files a run wrote: the record that lets ``--replace-unfinished`` remove them and nothing else.

    with recording(run_dir, fresh=True):   # the run claimed run_dir; every write under it is listed
        write_atomic(run_dir / "results.csv", text)     # "results.csv" listed *before* the file exists
    note(run_dir / "checkpoint")           # a folder another library fills: listed before it is made
    removed, left = clear(run_dir)         # the listed entries (and their temporaries) removed; the rest kept

The record is ``run_dir``/.lostmid-files: the run directory's top-level entries the run made, one name a
line, rewritten atomically each time a new one is listed, always before the entry is written (a kill in
between lists a name that does not exist, never leaves a run's file unlisted). While a run records, a
write under it that would replace an existing entry the run did not list (a file someone put there) is
refused. A record read from a run directory someone sent is untrusted: only plain names (no "/", not
"." or "..") count, and removing never follows a symlink.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import shutil
import threading

from ..atomic import is_temporary, write_atomic

LEDGER_FILE = ".lostmid-files"
"""The record of a run directory's own entries (hidden: the run's listing and load_run skip it)."""

_MAX_BYTES = 1 << 20
_lock = threading.RLock()  # note() writes the record through the atomic writer, whose guard calls note()
_recording: dict[pathlib.Path, tuple[set, bool]] = {}  # run dir -> (names listed, the list is complete)


def _plain(name: str) -> bool:
    return bool(name) and "/" not in name and "\0" not in name and name not in (".", "..", LEDGER_FILE)


def read_ledger(run_dir) -> set[str] | None:
    """The names listed in ``run_dir``'s record, or None when it has none (made before records existed)."""
    path = pathlib.Path(run_dir) / LEDGER_FILE
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_BYTES:
            return None
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return {line for line in text.splitlines() if _plain(line)}


def _write(run_dir: pathlib.Path, names: set) -> None:
    write_atomic(run_dir / LEDGER_FILE, "".join(f"{n}\n" for n in sorted(names)))


@contextlib.contextmanager
def recording(run_dir, *, fresh: bool):
    """List every entry written under ``run_dir`` (resolved) for the block; ``fresh``: a new list (a new or
    replaced run), else the run's existing one is extended (a resumed run; one without a record gets one,
    and then never refuses a write, since it cannot tell its own files from others')."""
    run_dir = pathlib.Path(run_dir).resolve()
    existing = None if fresh else read_ledger(run_dir)
    names = set() if existing is None else existing
    with _lock:
        _recording[run_dir] = (names, fresh or existing is not None)
    try:
        if existing is None:
            _write(run_dir, names)
        yield
    finally:
        with _lock:
            _recording.pop(run_dir, None)


def note(path) -> None:
    """List ``path``'s top-level entry in the record of the run directory being recorded that holds it
    (nothing when none does), before it is written.

    Raises:
      ValueError: naming ``path`` when it exists, its top-level entry is not listed, and the run's list is
        complete (a file the run did not write, which it never replaces).
    """
    if not _recording:
        return
    path = pathlib.Path(path)
    parent = path.parent.resolve()
    with _lock:
        for run_dir, (names, complete) in _recording.items():
            if parent != run_dir and run_dir not in parent.parents:
                continue
            top = (parent / path.name).relative_to(run_dir).parts[0]
            if top in names or top == LEDGER_FILE:
                return
            if complete and os.path.lexists(parent / path.name):
                raise ValueError(f"{parent / path.name} was not written by this run (it is not in {LEDGER_FILE}); a run "
                                 f"never replaces what it did not write: move it out of {run_dir}")
            names.add(top)
            _write(run_dir, names)
            return


def _remove(entry: pathlib.Path) -> None:
    if entry.is_dir() and not entry.is_symlink():
        shutil.rmtree(entry)
    else:
        entry.unlink()


def clear(run_dir) -> tuple[list[str], list[str]]:
    """Remove the entries ``run_dir``'s record lists, their temporaries and the record itself;
    (removed, left): the names removed and those kept (not the run's).

    Raises:
      ValueError: naming the directory when it has no record (nothing is removed then).
    """
    run_dir = pathlib.Path(run_dir)
    names = read_ledger(run_dir)
    if names is None:
        raise ValueError(f"out: {run_dir} has no {LEDGER_FILE} (the list of the files its run wrote; runs of "
                         "older versions have none), so what it holds cannot be told from files of yours: "
                         "delete the run's files yourself, or choose a new --out")
    ours = names | {LEDGER_FILE}
    removed, left = [], []
    for entry in sorted(run_dir.iterdir()):
        if entry.name in ours or any(is_temporary(entry.name, n) for n in ours):
            _remove(entry)
            removed.append(entry.name)
        else:
            left.append(entry.name)
    return removed, left


__all__ = ["LEDGER_FILE", "clear", "note", "read_ledger", "recording"]
