"""Claiming a run directory: a run never writes into someone else's results, and two runs never share one.

    out = resolve_out(args.out)                      # expanduser + resolve, once: every write uses this path
    with claim(out, jsonable(cfg), experiment="step0", resumable=True) as held:
        ... write into held.path ...                 # the lock is released when the block ends

The claim is atomic: a new directory is created with ``mkdir`` (no
``exist_ok``), and the run then holds an exclusive ``flock`` on the
directory itself for as long as it writes (no file is added to it). Two processes
started at once on one ``--out`` therefore end with one run and one clear
refusal; the lock dies with its process, so an interrupted run never blocks
its own resumption. A directory holding an unfinished run (config.json's
status is not "done") is named as such, with the command that resumes it
(resumable experiments) or the flag that starts it again (``--replace-unfinished``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import os
import pathlib

from ..atomic import remove_temporaries
from .config_file import CONFIG_FILE, read_config
from .ledger import clear

REPLACE_FLAG = "--replace-unfinished"
"""The flag that starts an unfinished run of an experiment that does not resume again, in the same directory."""


def resolve_out(path, name: str = "out", *, working_directory_ok: bool = False, file: bool = False) -> pathlib.Path:
    """``path`` with ~ expanded and every symlink resolved: the one path a run claims and writes to.

    Raises:
      ValueError: naming ``name`` for '', the working directory (unless ``working_directory_ok``), a symlink
        loop, a dangling symlink and a path that lies under a regular file (or is one, unless ``file``: the
        path names a file to write).
    """
    if str(path).strip() == "":
        raise ValueError(f"{name} must name a run directory, got '' (the working directory)")
    given = pathlib.Path(path).expanduser()
    for part in (given, *given.parents):
        if part.is_symlink() and not part.exists():
            try:
                part.resolve(strict=True)
            except RuntimeError:
                raise ValueError(f"{name}: {part} is a symlink loop; give a real directory") from None
            except OSError as err:
                if err.errno == errno.ELOOP:
                    raise ValueError(f"{name}: {part} is a symlink loop; give a real directory") from None
            raise ValueError(f"{name}: {part} is a symlink to {os.readlink(part)!r}, which does not exist; "
                             "give a real directory")
    try:
        target = given.resolve()
    except (RuntimeError, OSError) as err:
        raise ValueError(f"{name}: {str(path)!r} cannot be resolved ({err})") from None
    if not working_directory_ok and target == pathlib.Path.cwd().resolve():
        raise ValueError(f"{name}: {str(path)!r} is the working directory; choose a new directory for the run")
    for parent in target.parents if file else (target, *target.parents):
        if parent.exists() and not parent.is_dir():
            raise ValueError(f"{name}: {parent} is a file, not a directory")
    return target


def _entries(target: pathlib.Path) -> list[str]:
    return sorted(p.name for p in target.iterdir())


def _unfinished(record: dict | None) -> bool:
    return record is not None and record.get("status") != "done"


def _check(target: pathlib.Path, config: dict, *, experiment: str, resumable: bool, replace_unfinished: bool,
           locked: bool) -> str:
    """What to do with the existing directory ``target``: "new" (empty), "resume", "replace"; or a ValueError."""
    entries = _entries(target)
    if not entries:
        return "new"
    record = read_config(target / CONFIG_FILE)
    same = record is not None and record.get("experiment") == experiment
    status = record.get("status") if record is not None else None
    unfinished = (f"an unfinished {record.get('experiment')} run (status {status!r}: "
                  + ("interrupted or failed, no process holds it" if locked else "interrupted, failed or still running")
                  + ")") if _unfinished(record) else None
    if resumable and same:
        if record.get("config") == json.loads(json.dumps(config)):
            return "resume"
        raise ValueError(f"out: {target} holds {unfinished or f'a {experiment} run'} with a different configuration; "
                         f"use another --out" + (f", or resume it: lostmid rerun {target} --out {target}"
                                                 if unfinished else " (or the same flags to resume it)"))
    if unfinished and same and replace_unfinished:
        return "replace"
    if unfinished:
        how = (f"start it again with {REPLACE_FLAG} (which deletes the files its run wrote)" if same and not resumable
               else f"resume it with: lostmid rerun {target} --out {target}" if _resumes(record) else "")
        raise ValueError(f"out: {target} holds {unfinished}: {', '.join(entries[:4])}"
                         f"{', ...' if len(entries) > 4 else ''}; " + (f"{how}, or " if how else "")
                         + "choose a new --out")
    what = f"a {record.get('experiment', 'finished')} run" if record is not None else f"{len(entries)} entries"
    raise ValueError(f"out: {target} is not empty (it holds {what}: {', '.join(entries[:4])}"
                     f"{', ...' if len(entries) > 4 else ''}); a run never writes into an existing directory "
                     "unless it resumes that very run: choose a new --out")


def _resumes(record: dict) -> bool:
    from .registry import experiment_module, experiment_names

    name = record.get("experiment")
    return name in experiment_names() and bool(getattr(experiment_module(name), "RESUMABLE", False))


def claim_run_dir(path, config: dict, *, experiment: str, resumable: bool,
                  replace_unfinished: bool = False) -> bool:
    """Check, without creating or locking anything, that ``path`` may receive this run; True if it does
    not exist yet (see :func:`claim`, which also takes the directory atomically).

    Raises:
      ValueError: naming ``out`` and what is there.
    """
    target = resolve_out(path)
    if not target.exists():
        return True
    _check(target, config, experiment=experiment, resumable=resumable, replace_unfinished=replace_unfinished,
           locked=False)
    return False


@dataclasses.dataclass
class Claim:
    """A run directory held by this process.

    Attributes:
      path: the resolved directory; every file of the run is written under it.
      created: this claim created the directory (a run that fails before finishing anything removes it).
      resumed: the directory holds this very run, which resumes.
      replaced: an unfinished run was there; the files it wrote were removed (``--replace-unfinished``).
      left: what such a directory held that its run had not written, left in place.
    """

    path: pathlib.Path
    created: bool
    resumed: bool
    replaced: bool = False
    left: tuple = ()
    _fd: int | None = None

    def release(self) -> None:
        """Drop the lock (closing its file); idempotent."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def try_lock(target: pathlib.Path) -> int | None:
    """An exclusive flock on directory ``target`` (its open descriptor: close it to release), taken without
    waiting; None when another process holds it or the directory cannot be opened."""
    import fcntl

    try:
        fd = os.open(target, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _lock(target: pathlib.Path) -> int:
    """An exclusive flock on the directory ``target`` (its open descriptor); ValueError if another process holds it."""
    import fcntl

    try:
        fd = os.open(target, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as err:
        raise ValueError(f"out: cannot open {target} ({err.strerror}); choose a new --out") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ValueError(f"out: {target} is being written by another run right now; choose a new --out") from None
    try:
        same = os.path.samestat(os.fstat(fd), os.stat(target, follow_symlinks=False))
    except OSError:
        same = False
    if not same:  # removed (a failed run cleaning up) or replaced while this process waited
        os.close(fd)
        raise ValueError(f"out: {target} was removed by another run while this one claimed it; choose a new --out")
    return fd


def claim(path, config: dict, *, experiment: str, resumable: bool, replace_unfinished: bool = False) -> Claim:
    """Take run directory ``path`` for this run, atomically, before any work (see the module docstring).

    Refused (ValueError naming ``out``): what :func:`resolve_out` refuses; a directory another process is
    writing; an existing non-empty directory, unless ``resumable`` and its config.json records the same
    ``experiment`` and ``config`` (resuming this very run), or ``replace_unfinished`` and it holds an
    unfinished run of the same experiment (the files its run wrote, listed in its record
    :mod:`.ledger`, are deleted, the rest kept, and the run starts again). A resumed run's leftover
    temporaries (of a killed write) are removed.
    """
    target = resolve_out(path, working_directory_ok=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        target.mkdir()
        created = True
    except FileExistsError:
        created = False
        if not target.is_dir():
            raise ValueError(f"out: {target} is a file, not a directory") from None
        # refuse what is plainly someone else's before touching the directory at all
        _check(target, config, experiment=experiment, resumable=resumable, replace_unfinished=replace_unfinished,
               locked=False)
    fd = _lock(target)
    try:
        action = _check(target, config, experiment=experiment, resumable=resumable,
                        replace_unfinished=replace_unfinished, locked=True)
        left = ()
        if action == "replace":
            left = tuple(clear(target)[1])
        elif action == "resume":
            remove_temporaries(target)
    except BaseException:
        os.close(fd)
        raise
    return Claim(path=target, created=created, resumed=action == "resume", replaced=action == "replace", left=left,
                 _fd=fd)


@contextlib.contextmanager
def held(path, config: dict, **kwargs):
    """:func:`claim` as a context manager: the lock is released when the block ends."""
    taken = claim(path, config, **kwargs)
    try:
        yield taken
    finally:
        taken.release()


__all__ = ["Claim", "REPLACE_FLAG", "claim", "claim_run_dir", "held", "resolve_out", "try_lock"]
