"""Run directories and result files shared by the experiments and the CLI.

A run directory holds config.json (the arguments, package versions and git
revision), results as CSV files (one NA encoding: an empty field), their
column dictionary columns.csv (file, column, meaning, unit), verdict.txt,
table.txt and figures. :func:`load_run` reads one back as typed data:

    run = load_run("runs/depth_sweep/20260101-...")
    run.tables["results"]        # pandas.DataFrame, numeric columns numeric
    run.columns["results"]       # {column: (meaning, unit)}
    run.config, run.verdict, run.figures
"""

from __future__ import annotations

import csv
import dataclasses
import datetime
import importlib.metadata
import json
import math
import pathlib
import platform
import subprocess
from io import StringIO

_PACKAGES = ("lostmid-jax", "jax", "jaxlib", "flax", "optax", "orbax-checkpoint", "numpy", "scipy", "mpmath",
             "python-flint", "matplotlib", "pandas")


def package_versions() -> dict[str, str]:
    """Installed versions of the packages results depend on."""
    versions = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def git_revision() -> str | None:
    """The git commit of the source tree (with '+dirty' if modified), or None."""
    here = pathlib.Path(__file__).resolve().parent
    try:
        rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=here, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return rev + ("+dirty" if dirty else "")


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
    record = _read_config(target / "config.json")
    if resumable and record is not None and record.get("experiment") == experiment:
        if record.get("config") == json.loads(json.dumps(config)):
            return False
        raise ValueError(f"out: {target} holds a {experiment} run with a different configuration; "
                         f"use another --out (or the same flags to resume it)")
    what = f"a {record.get('experiment', 'finished')} run" if record is not None else f"{len(entries)} entries"
    raise ValueError(f"out: {target} is not empty (it holds {what}: {', '.join(entries[:4])}"
                     f"{', ...' if len(entries) > 4 else ''}); a run never writes into an existing directory "
                     "unless it resumes that very run: choose a new --out")


def _read_config(path: pathlib.Path) -> dict | None:
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def write_atomic(path: pathlib.Path, text: str) -> pathlib.Path:
    """Write ``text`` to a temporary name beside ``path``, then rename it into place."""
    path = pathlib.Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", newline="") as f:  # the text as given: CSV keeps its \r\n
        f.write(text)
    tmp.replace(path)
    return path


def jsonable(value):
    """A value JSON can store: dataclasses and dicts as objects, tuples as lists,
    non-finite floats as their string ("inf", "nan"), numpy scalars as Python numbers."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: jsonable(v) for k, v in dataclasses.asdict(value).items()}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if hasattr(value, "item") and getattr(value, "shape", None) == ():  # numpy scalars
        return jsonable(value.item())
    return str(value)


def write_config(run_dir: pathlib.Path, config, **extra) -> pathlib.Path:
    """Write config.json: the config dataclass, versions, git revision, extras."""
    record = {
        "config": jsonable(config),
        "versions": package_versions(),
        "git_revision": git_revision(),
        "created_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        **{k: jsonable(v) for k, v in extra.items()},
    }
    return write_atomic(pathlib.Path(run_dir) / "config.json", json.dumps(record, indent=2) + "\n")


def na_field(value):
    """``value`` as written to a CSV field: None and NaN (float or NumPy) become '' (the one NA encoding)."""
    if value is None:
        return ""
    try:
        if value != value:  # NaN, whatever its float type
            return ""
    except (TypeError, ValueError):  # arrays and other values without a truth value
        pass
    return value


def write_csv(path: pathlib.Path, records: list[dict]) -> pathlib.Path:
    """Write a list of flat dicts as CSV (columns from the first record, in order).

    Missing values (None, NaN) are written as an empty field, which
    :func:`load_run` (pandas) reads as NaN; booleans as True / False.
    """
    if not records:
        raise ValueError("records must not be empty")
    buffer = StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(records[0]), lineterminator="\r\n", restval="")
    writer.writeheader()
    writer.writerows({k: na_field(v) for k, v in row.items()} for row in records)
    return write_atomic(path, buffer.getvalue())


def read_csv(path: pathlib.Path) -> list[dict]:
    """Read a CSV written by :func:`write_csv` (values as strings; :func:`load_run` gives typed tables)."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


from .results import Run, load_run  # noqa: E402  (results imports nothing from here at import time)
