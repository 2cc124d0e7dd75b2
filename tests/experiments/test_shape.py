"""Every experiment has one shape: a frozen keyword-only Config, run(cfg, run_dir) -> result, records,
summary, verdict, figures(tables, cfg) and COLUMNS (lostmid_jax/experiments/__init__.py)."""

import dataclasses
import inspect

import pytest

from lostmid_jax import experiments


@pytest.mark.parametrize("name", list(experiments.EXPERIMENTS))
def test_experiment_has_the_shape(name):
    exp = experiments.load(name)
    assert exp.NAME == name and isinstance(exp.VERDICT_TITLE, str) and isinstance(exp.SMOKE, dict)
    params = exp.Config.__dataclass_params__
    assert dataclasses.is_dataclass(exp.Config) and params.frozen
    assert all(f.kw_only for f in dataclasses.fields(exp.Config)), f"{name}.Config is not keyword-only"
    assert list(inspect.signature(exp.run).parameters)[:2] == ["cfg", "run_dir"]
    assert {"progress", "mesh"} <= set(inspect.signature(exp.run).parameters)
    for function in ("records", "summary", "verdict", "figures", "describe"):
        assert callable(getattr(exp, function)), f"{name}.{function}"
    assert list(inspect.signature(exp.figures).parameters) == ["tables", "cfg"]
    assert exp.COLUMNS and all(isinstance(columns, dict) for columns in exp.COLUMNS.values())
    assert all(isinstance(m, str) and isinstance(u, str) for columns in exp.COLUMNS.values()
               for m, u in columns.values())
