"""Where ``lostmid report`` and ``lostmid plot`` write: a new path or their own earlier output, never another run.

    path = report_path(run, out)                # RUN/report.html, or --out, checked
    directory = figures_dir(run, out)           # RUN, or --out, checked
    check_figure_files(run, paths, given=...)   # each existing file is a figure lostmid wrote
    with tidied(run, paths): ...                # temporaries a killed report or plot left are removed first

A file counts as the command's earlier output when it carries its mark (:data:`REPORT_MARK` in a page's
head, :data:`FIGURE_CREATOR` in a figure's metadata) or, inside the run itself, when the run lists it (its
record :mod:`.ledger`, or config.json's "figures"). Any other existing file (the run's config.json, a
table, a note of yours) is never replaced, and a path inside another run directory (one whose
config.json names an experiment, or that has a record) is refused even when new. Messages name --out
only when it was given.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import stat

from ..atomic import is_temporary, remove_temporaries
from ..untrusted import read_json_object
from .claim import resolve_out, try_lock
from .config_file import CONFIG_FILE
from .ledger import LEDGER_FILE, read_ledger

REPORT_MARK = "<meta name='generator' content='lostmid report'>"
"""In the head of every page ``lostmid report`` writes: what tells its earlier output from other files."""

FIGURE_CREATOR = "lostmid-jax save_figures"
"""The Creator in every figure file's metadata (PNG, PDF, SVG) that :func:`.plot.save_figures` writes."""

_LEGACY_REPORT_HEAD = ("<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
                       "<meta name='viewport' content='width=device-width, initial-scale=1'>\n<title>")
_MAX_RECORD = 4 << 20
_MAX_OUTPUT = 256 << 20


def _regular_size(path: pathlib.Path) -> int | None:
    """The size of ``path`` if it is a regular file (not followed when a symlink), else None."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


def is_run_dir(directory: pathlib.Path) -> bool:
    """True when ``directory`` is a run directory: it has a record, or a config.json naming an experiment."""
    if os.path.lexists(directory / LEDGER_FILE):
        return True
    if _regular_size(directory / CONFIG_FILE) is None:  # a symlinked config.json is not followed
        return False
    try:
        record = read_json_object(directory / CONFIG_FILE, max_bytes=_MAX_RECORD)
    except ValueError:
        return False
    return "experiment" in record


def enclosing_run(path: pathlib.Path) -> pathlib.Path | None:
    """The nearest run directory that is ``path`` (resolved) or holds it, or None."""
    return next((d for d in (path, *path.parents) if is_run_dir(d)), None)


def _head(path: pathlib.Path, limit: int | None = 8192) -> bytes | None:
    size = _regular_size(path)
    if size is None or size > _MAX_OUTPUT:
        return None
    try:
        with open(path, "rb") as f:
            return f.read(limit if limit is not None else size)
    except OSError:
        return None


def is_report(path: pathlib.Path) -> bool:
    """True when ``path`` is a page ``lostmid report`` wrote (its mark, or the head pages had before it)."""
    head = _head(path)
    return head is not None and (REPORT_MARK.encode() in head or head.startswith(_LEGACY_REPORT_HEAD.encode()))


def is_figure(path: pathlib.Path) -> bool:
    """True when ``path`` is a figure file :func:`.plot.save_figures` wrote (its Creator mark)."""
    data = _head(path, None)
    return data is not None and FIGURE_CREATOR.encode() in data


def _own_listed(run, path: pathlib.Path) -> bool:
    """``path`` lies at the top of the run and the run lists it as its own (record, or config.json's figures)."""
    root = run.path.resolve()
    if path.parent != root or _regular_size(path) is None:
        return False
    return path.name in (read_ledger(root) or set()) or path.name in (run.record.get("figures") or [])


def _where(given: bool, flag: str) -> str:
    return "choose another " + flag if given else f"move it away, or write elsewhere with {flag}"


def report_path(run, out=None) -> pathlib.Path:
    """The file the report of ``run`` goes to: RUN/report.html, or ``out`` (resolved).

    Raises:
      ValueError: a directory; a path inside another run directory; an existing file that is not a page
        ``lostmid report`` wrote (naming --out only when ``out`` was given).
    """
    root = run.path.resolve()
    given = out is not None
    path = resolve_out(out, working_directory_ok=True, file=True) if given else root / "report.html"
    where = "out: " if given else ""
    if path.is_dir():
        raise ValueError(f"{where}{path} is a directory; give the HTML file's name")
    other = enclosing_run(path.parent)
    if other is not None and other != root:
        raise ValueError(f"{where}{path} lies inside another run directory ({other}); a report never writes into "
                         "another run: choose a path outside it")
    if os.path.lexists(path) and not is_report(path):
        raise ValueError(f"{where}{path} exists and is not a page lostmid report wrote; it is never replaced: "
                         + _where(given, "--out FILE"))
    return path


def figures_dir(run, out=None) -> pathlib.Path:
    """The directory the figures of ``run`` go to: the run itself (however its path is spelled), or ``out``.

    Raises:
      ValueError: naming --out: a path inside another run directory (or one), or what :func:`.claim.resolve_out`
        refuses other than the working directory.
    """
    if out is None:
        return run.path
    target = resolve_out(out, working_directory_ok=True)
    other = enclosing_run(target)
    if other is not None and other != run.path.resolve():
        where = "holds another run (its config.json)" if other == target else f"lies inside another run ({other})"
        raise ValueError(f"out: {target} {where}; its files are never overwritten: choose a directory outside "
                         "any run, or omit --out to redraw into RUN_DIR")
    return target


def check_figure_files(run, paths, *, given: bool) -> None:
    """Refuse (ValueError) when one of ``paths`` exists and is not a figure lostmid wrote (nor one the run lists)."""
    for path in paths:
        path = pathlib.Path(path)
        if os.path.lexists(path) and not (is_figure(path) or _own_listed(run, path.resolve())):
            where = "out: " if given else ""
            raise ValueError(f"{where}{path} exists and is not a figure lostmid wrote; it is never replaced: "
                             + _where(given, "--out DIR"))


@contextlib.contextmanager
def tidied(run, paths=()):
    """Hold the run directory's lock for the block, after removing the temporaries a killed command left in
    it (and those of ``paths`` beside them); when a run or another report holds the lock, remove nothing."""
    root = run.path.resolve()
    fd = try_lock(root)
    try:
        if fd is not None:
            remove_temporaries(root)
            for path in map(pathlib.Path, paths):
                with contextlib.suppress(OSError):
                    for entry in path.parent.iterdir():
                        if is_temporary(entry.name, path.name) and not entry.is_dir():
                            entry.unlink()
        yield
    finally:
        if fd is not None:
            os.close(fd)


__all__ = ["FIGURE_CREATOR", "REPORT_MARK", "check_figure_files", "enclosing_run", "figures_dir", "is_figure",
           "is_report", "is_run_dir", "report_path", "tidied"]
