"""Run a command as if only the base dependencies of pyproject.toml were installed.

    python tests/install/base_only.py -m lostmid_jax.cli diagnose --smoke ...
    python tests/install/base_only.py sims/lost_in_the_middle_toy.py --smoke ...

The base dependencies are read from pyproject.toml and closed over their own
requirements (importlib.metadata); every installed top-level module of any
other distribution (transformers, torch, pytest, ...) is hidden from every
import finder, which is what a fresh ``pip install -e .`` gives. Python's standard
library, pip/setuptools and lostmid_jax itself stay importable.
"""

from __future__ import annotations

import importlib.abc
import importlib.metadata as metadata
import pathlib
import re
import runpy
import sys
import tomllib

from packaging.requirements import Requirement

ROOT = pathlib.Path(__file__).resolve().parents[2]
ALWAYS = {"lostmid_jax", "setuptools", "pkg_resources", "_distutils_hack", "pip"}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def base_distributions() -> set[str]:
    """Normalized names of the base dependencies and everything they require (no extras)."""
    todo = [Requirement(r) for r in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]]
    seen: set[str] = set()
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = _norm(req.name)
        if name in seen:
            continue
        seen.add(name)
        try:
            todo += [Requirement(r) for r in metadata.requires(req.name) or ()]
        except metadata.PackageNotFoundError:
            continue
    return seen


def blocked_modules() -> set[str]:
    """Installed top-level modules that a base install would not have."""
    base = base_distributions()
    return {module for module, dists in metadata.packages_distributions().items()
            if module not in ALWAYS and not any(_norm(d) in base for d in dists)}


class _Hide(importlib.abc.MetaPathFinder):
    """One finder of sys.meta_path that finds nothing of the hidden top-level modules (as if not installed:
    ``import`` raises ModuleNotFoundError and ``importlib.util.find_spec`` returns None)."""

    def __init__(self, finder, names: set[str]):
        self.finder, self.names = finder, names

    def find_spec(self, fullname, path=None, target=None):
        if fullname.partition(".")[0] in self.names or not hasattr(self.finder, "find_spec"):
            return None
        return self.finder.find_spec(fullname, path, target)

    def invalidate_caches(self):
        if hasattr(self.finder, "invalidate_caches"):
            self.finder.invalidate_caches()


def main(argv: list[str]) -> None:
    hidden = blocked_modules()
    sys.meta_path[:] = [_Hide(finder, hidden) for finder in sys.meta_path]
    if argv[:1] == ["-m"]:
        sys.argv = [argv[1], *argv[2:]]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(argv)
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
