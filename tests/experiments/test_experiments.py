"""experiments/__init__.py: the registry of experiments and the shape every experiment module has."""

import dataclasses

import pytest

from lostmid_jax.experiments import EXPERIMENTS, load
from lostmid_jax.runs.config import field_types, nested_class

def _paths(cls, prefix=""):
    """Every dotted field path of a config, nested configs and their fields."""
    hints = field_types(cls)
    for field in dataclasses.fields(cls):
        yield prefix + field.name
        inner = nested_class(hints[field.name])
        if inner is not None:
            yield from _paths(inner, prefix + field.name + ".")


REQUIRED = ("NAME", "Config", "SMOKE", "COLUMNS", "run", "records", "summary", "verdict", "figures")


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_every_experiment_module_has_the_shape(name):
    exp = load(name)
    assert exp.NAME == name
    assert [a for a in REQUIRED if not hasattr(exp, a)] == []
    assert dataclasses.is_dataclass(exp.Config) and exp.Config.__dataclass_params__.frozen
    assert exp.SMOKE and set(exp.SMOKE) <= set(_paths(exp.Config))  # --smoke sets fields that exist


def test_subcommands_are_unique_and_unknown_names_are_refused():
    commands = [command for command, _ in EXPERIMENTS.values()]
    assert len(commands) == len(set(commands))
    with pytest.raises(ValueError, match="experiment must be one of"):
        load("depth-sweep")
