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

_registered: dict = {"names": (), "load": None}


def register(names, load) -> None:
    """Record the experiment ``names`` and ``load(name) -> module``."""
    _registered.update(names=tuple(names), load=load)


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


__all__ = ["PROVIDER", "experiment_module", "experiment_names", "register"]
