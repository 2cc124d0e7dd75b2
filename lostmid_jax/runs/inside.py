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

from .. import untrusted


def check_inside(run_dir, path) -> pathlib.Path:
    """``path`` (an entry of the run directory ``run_dir``), if it is a regular file inside it (a symlink
    whose target is such a file inside it is kept: the name is returned, the target checked).

    Raises:
      ValueError: naming the entry: a symlink that leaves the run directory (or dangles or loops), or
        something other than a regular file.
    """
    return untrusted.check_inside(run_dir, path, "run directory")


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
    """The UTF-8 text of ``run_dir``/``name`` (:func:`inside`), or None when absent (ValueError naming the file
    when it is not UTF-8: :func:`lostmid_jax.untrusted.read_text_file`)."""
    path = inside(run_dir, name)
    return untrusted.read_text_file(path) if path is not None else None


__all__ = ["check_inside", "inside", "inside_glob", "read_text"]
