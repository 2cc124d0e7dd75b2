"""The experiments a run directory may name, passed in by the package that defines them.

runs/ knows no experiment, by import or by name: the package that defines them
calls :func:`register` (``lostmid_jax.experiments`` does when it is imported),
and reading a run back before any registration is a one-line error.

    register({"depth_sweep": ("sweep", "...")}, load)   # in lostmid_jax/experiments/__init__.py
    experiment_module("depth_sweep")                    # load("depth_sweep"): the module
"""

from __future__ import annotations

_registered: dict = {"names": (), "load": None, "described": {}}


def register(names, load) -> None:
    """Record the experiment ``names`` and ``load(name) -> module``; ``names`` may be a dict
    {name: (subcommand, one-line description)} (what :func:`describe` answers)."""
    described = {k: tuple(v) for k, v in names.items()} if isinstance(names, dict) else {}
    _registered.update(names=tuple(names), load=load, described=described)


def _ensure() -> dict:
    if _registered["load"] is None:
        raise RuntimeError("no experiments are registered, so no run directory can be read back: import "
                           "lostmid_jax.experiments first (it registers them)")
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


__all__ = ["describe", "experiment_module", "experiment_names", "register"]
