"""Run a command as if only the base dependencies of pyproject.toml were installed.

    python tests/install/base_only.py -m lostmid_jax.cli diagnose --smoke ...
    python tests/install/base_only.py sims/lost_in_the_middle_toy.py --smoke ...

The base dependencies are read from pyproject.toml and closed over their own
requirements (importlib.metadata); every installed top-level module of any
other distribution (transformers, torch, pytest, ...) raises ImportError when
imported, which is what a fresh ``pip install -e .`` gives. Python's standard
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


class _Block(importlib.abc.MetaPathFinder):
    def __init__(self, names: set[str]):
        self.names = names

    def find_spec(self, fullname, path=None, target=None):
        if fullname.partition(".")[0] in self.names:
            raise ImportError(f"No module named {fullname!r} (not a base dependency)", name=fullname)
        return None


def main(argv: list[str]) -> None:
    sys.meta_path.insert(0, _Block(blocked_modules()))
    if argv[:1] == ["-m"]:
        sys.argv = [argv[1], *argv[2:]]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(argv)
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
