"""runs.registry: the experiments are passed in (register); before that, reading a run back is one clear error."""

import pytest

from lostmid_jax import runs
from lostmid_jax.runs import registry


@pytest.fixture
def empty(monkeypatch):
    monkeypatch.setattr(registry, "_registered", {"names": (), "load": None, "described": {}})


def test_nothing_registered_is_one_line_saying_what_to_import(empty, tmp_path):
    for lookup in (registry.experiment_names, lambda: registry.experiment_module("x"),
                   lambda: registry.describe("x")):
        with pytest.raises(RuntimeError, match=r"^no experiments are registered.*import lostmid_jax\.experiments"):
            lookup()
    (tmp_path / "config.json").write_text('{"experiment": "depth_sweep", "config": {}}')
    with pytest.raises(RuntimeError, match="no experiments are registered"):
        runs.load_run(tmp_path)


def test_what_is_registered_is_what_lookups_answer(empty):
    registry.register({"a_b": ("cmd-a", "does a")}, lambda name: f"module {name}")
    assert registry.experiment_names() == ("a_b",)
    assert registry.experiment_module("a_b") == "module a_b"
    assert registry.describe("a_b") == ("cmd-a", "does a")
    assert registry.describe("c_d") == ("c_d", "c d")  # a name the registration did not describe
    registry.register(["x"], lambda name: name)  # names alone
    assert registry.experiment_names() == ("x",) and registry.describe("x") == ("x", "x")


def test_the_experiments_package_registers_itself_when_imported():
    from lostmid_jax import experiments

    assert registry.experiment_names() == tuple(experiments.EXPERIMENTS)
    assert registry.experiment_module("depth_sweep") is experiments.load("depth_sweep")
    assert registry.describe("depth_sweep") == experiments.EXPERIMENTS["depth_sweep"]
