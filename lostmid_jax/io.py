"""Run directories and result files shared by the sims and the CLI.

A run directory holds config.json (the arguments, seed, package versions and
git revision), results as CSV / JSON lines, and figures as PNG.
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

_PACKAGES = ("lostmid-jax", "jax", "jaxlib", "flax", "optax", "orbax-checkpoint", "numpy", "scipy", "mpmath", "python-flint")


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


def make_run_dir(root: str | pathlib.Path, name: str, out: str | pathlib.Path | None = None) -> pathlib.Path:
    """Create ``out``, or ``root/name/<UTC timestamp>`` when ``out`` is None."""
    if out is None:
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S-%f")
        out = pathlib.Path(root) / name / stamp
    path = pathlib.Path(out)
    path.mkdir(parents=True, exist_ok=True)
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
    path = run_dir / "config.json"
    path.write_text(json.dumps(record, indent=2) + "\n")
    return path


def write_csv(path: pathlib.Path, records: list[dict]) -> pathlib.Path:
    """Write a list of flat dicts as CSV (columns from the first record, in order)."""
    if not records:
        raise ValueError("records must not be empty")
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(records[0]))
        writer.writeheader()
        writer.writerows(records)
    return path


def read_csv(path: pathlib.Path) -> list[dict]:
    """Read a CSV written by :func:`write_csv` (values as strings)."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))
