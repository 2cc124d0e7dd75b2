"""Reading a run directory someone sent: only regular files inside it, never what a symlink points to elsewhere.

    path = inside(run_dir, "verdict.txt")        # the file, or None when absent
    paths = inside_glob(run_dir, "*.csv")        # every such entry, each checked

A symlink is resolved and must stay inside the (resolved) run directory: a
run's ``verdict.txt -> ../secret.txt`` is refused with a ValueError naming the
entry, so no report embeds, and no table reads, a file the run points to. A
FIFO, socket or device is refused too (reading one could hang or never end).
"""

from __future__ import annotations

import os
import pathlib
import stat


def _root(run_dir) -> pathlib.Path:
    return pathlib.Path(run_dir).resolve()


def check_inside(run_dir, path) -> pathlib.Path:
    """``path`` (an entry of the run directory ``run_dir``), if it is a regular file inside it (a symlink
    whose target is such a file inside it is kept: the name is returned, the target checked).

    Raises:
      ValueError: naming the entry: a symlink that leaves the run directory (or dangles or loops), or
        something other than a regular file.
    """
    root, path = _root(run_dir), pathlib.Path(path)
    entry = path
    if path.is_symlink():
        try:
            target = path.resolve(strict=True)
        except (OSError, RuntimeError):
            raise ValueError(f"{path} is a symlink that leads nowhere ({os.readlink(path)!r}); a run directory "
                             "is read from its own files only") from None
        if target != root and root not in target.parents:
            raise ValueError(f"{path} is a symlink to {target}, outside the run directory {root}; a run directory "
                             "is read from its own files only (replace the link by the file)")
        path = target
    mode = path.stat().st_mode
    if not stat.S_ISREG(mode):
        raise ValueError(f"{entry} is not a regular file; a run directory is read from its own regular files only")
    return entry


def inside(run_dir, name: str) -> pathlib.Path | None:
    """The regular file ``run_dir``/``name`` (:func:`check_inside`), or None when there is no such entry."""
    path = pathlib.Path(run_dir) / name
    if not os.path.lexists(path):
        return None
    return check_inside(run_dir, path)


def inside_glob(run_dir, pattern: str) -> list[pathlib.Path]:
    """The entries of ``run_dir`` matching ``pattern`` (sorted, not hidden), each checked by :func:`check_inside`."""
    run_dir = pathlib.Path(run_dir)
    return [check_inside(run_dir, p) for p in sorted(run_dir.glob(pattern)) if not p.name.startswith(".")]


def read_text(run_dir, name: str) -> str | None:
    """The text of ``run_dir``/``name`` (:func:`inside`), or None when absent."""
    path = inside(run_dir, name)
    return path.read_text() if path is not None else None


__all__ = ["check_inside", "inside", "inside_glob", "read_text"]
