"""config.json of a run directory: the configuration, package versions, git revision and status.

    write_config(run_dir, cfg, experiment="depth_sweep", status="running")
    read_config(run_dir / "config.json")    # the record as a dict, or None if unreadable
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import pathlib
import platform
import subprocess

from ..atomic import write_atomic
from ..untrusted import read_json
from .config import jsonable
from .inside import inside

CONFIG_FILE = "config.json"
"""The record of a run directory (experiment, config, versions, git_revision, created_utc, status, ...)."""

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


def write_config(run_dir: pathlib.Path, config, **extra) -> pathlib.Path:
    """Write config.json: the config dataclass, versions, git revision, extras."""
    record = {
        "config": jsonable(config),
        "versions": package_versions(),
        "git_revision": git_revision(),
        "created_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        **{k: jsonable(v) for k, v in extra.items()},
    }
    return write_atomic(pathlib.Path(run_dir) / CONFIG_FILE, json.dumps(record, indent=2) + "\n")


def read_config(path: pathlib.Path) -> dict | None:
    """The JSON object in ``path``, or None when it is missing, unreadable or not an object."""
    try:
        record = read_json(path)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def read_run_record(run_dir, *, argument: str, missing: str) -> tuple[pathlib.Path, object]:
    """(path, parsed JSON) of a run's own config.json, never a link out of the run (a run someone sent).

    Raises:
      ValueError: "<argument>: '<run_dir>' <missing>" without a config.json; "<argument>: <path> is not valid
        JSON (...)", "... is not UTF-8 text", "... nests ... deep" (:func:`lostmid_jax.untrusted.read_json`).
    """
    path = inside(run_dir, CONFIG_FILE)
    if path is None:
        raise ValueError(f"{argument}: {str(run_dir)!r} {missing}")
    return path, read_json(path, argument)


__all__ = ["CONFIG_FILE", "git_revision", "package_versions", "read_config", "read_run_record", "write_config"]
