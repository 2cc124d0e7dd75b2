"""Claiming a run directory: a run never writes into someone else's results.

    created = claim_run_dir(out, jsonable(cfg), experiment="step0", resumable=True)
"""

from __future__ import annotations

import json
import pathlib

from .config_file import CONFIG_FILE, read_config


def claim_run_dir(path: str | pathlib.Path, config: dict, *, experiment: str, resumable: bool) -> bool:
    """Check that run directory ``path`` may receive this run, before any work; True if it does not exist yet.

    Never writes into someone else's results: refused are '' and the working
    directory, a path that is (or lies under) a regular file, and an existing
    non-empty directory, unless ``resumable`` and its config.json records the
    same ``experiment`` and ``config`` (``jsonable`` form): that is resuming
    this very run.

    Raises:
      ValueError: naming ``out`` and what is there.
    """
    if str(path).strip() == "":
        raise ValueError("out must name a run directory, got '' (the working directory)")
    target = pathlib.Path(path).expanduser().resolve()
    if target == pathlib.Path.cwd().resolve():
        raise ValueError(f"out: {str(path)!r} is the working directory; choose a new directory for the run")
    for parent in (target, *target.parents):
        if parent.exists() and not parent.is_dir():
            raise ValueError(f"out: {parent} is a file, not a directory")
    if not target.exists():
        return True
    entries = sorted(p.name for p in target.iterdir())
    if not entries:
        return False
    record = read_config(target / CONFIG_FILE)
    if resumable and record is not None and record.get("experiment") == experiment:
        if record.get("config") == json.loads(json.dumps(config)):
            return False
        raise ValueError(f"out: {target} holds a {experiment} run with a different configuration; "
                         f"use another --out (or the same flags to resume it)")
    what = f"a {record.get('experiment', 'finished')} run" if record is not None else f"{len(entries)} entries"
    raise ValueError(f"out: {target} is not empty (it holds {what}: {', '.join(entries[:4])}"
                     f"{', ...' if len(entries) > 4 else ''}); a run never writes into an existing directory "
                     "unless it resumes that very run: choose a new --out")


__all__ = ["claim_run_dir"]
