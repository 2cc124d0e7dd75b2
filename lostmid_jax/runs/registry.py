"""The experiments a run directory may name, registered by the package that defines them.

runs/ imports nothing from the experiments: ``lostmid_jax.experiments`` calls
:func:`register` when it is imported, and a lookup before that imports the
package named by :data:`PROVIDER` (by name, so the import graph keeps runs/
below the experiments).

    register({"depth_sweep": ...}, load)      # in lostmid_jax/experiments/__init__.py
    experiment_module("depth_sweep")          # the module, imported on demand
"""

from __future__ import annotations

import importlib

PROVIDER = "lostmid_jax.experiments"
"""The package imported on the first lookup, when no experiments are registered yet."""

_registered: dict = {"names": (), "load": None, "described": {}}


def register(names, load) -> None:
    """Record the experiment ``names`` and ``load(name) -> module``; ``names`` may be a dict
    {name: (subcommand, one-line description)} (what :func:`describe` answers)."""
    described = {k: tuple(v) for k, v in names.items()} if isinstance(names, dict) else {}
    _registered.update(names=tuple(names), load=load, described=described)


def _ensure() -> dict:
    if _registered["load"] is None:
        importlib.import_module(PROVIDER)  # registers itself
    return _registered


def experiment_names() -> tuple[str, ...]:
    """The registered experiment names (the values config.json's "experiment" may take)."""
    return _ensure()["names"]


def experiment_module(name: str):
    """The experiment module ``name`` (ValueError for an unknown name)."""
    return _ensure()["load"](name)


def describe(name: str) -> tuple[str, str]:
    """(the ``lostmid`` subcommand, its one-line description) of experiment ``name``; (name, name) when the
    registration gave none."""
    return _ensure()["described"].get(name, (name, name.replace("_", " ")))


__all__ = ["PROVIDER", "describe", "experiment_module", "experiment_names", "register"]
