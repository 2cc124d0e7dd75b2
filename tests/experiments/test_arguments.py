"""Flags from config dataclasses (lostmid_jax/experiments/arguments.py): dotted paths for nested fields,
short names only from explicit tables, and a refusal when one flag would name two fields."""

from __future__ import annotations

import argparse
import collections
import dataclasses
import json

import pytest

from lostmid_jax.experiments import EXPERIMENTS, load, script
from lostmid_jax.experiments.arguments import add_flags, flag_name, flags, given_values, parse_assignment


@dataclasses.dataclass(frozen=True, kw_only=True)
class Scaling:
    kind: str = "linear"
    factor: float = 2.0


@dataclasses.dataclass(frozen=True, kw_only=True)
class Model:
    width: int = 8
    bias: bool = True
    scaling: Scaling | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class Outer:
    model: Model = Model()
    seed: int = 0


@dataclasses.dataclass(frozen=True, kw_only=True)
class Grown(Outer):
    """Outer with a field whose leaf name ("kind") an existing nested field already has."""

    kind: str = "a"


def _options(flag_list) -> dict[str, tuple[str, ...]]:
    return {f.path: f.options for f in flag_list}


def test_nested_fields_are_named_by_their_dotted_path():
    assert flag_name("base.model.rope_scaling.kind") == "--base.model.rope-scaling.kind"
    assert _options(flags(Outer)) == {"model.width": ("--model.width",), "model.bias": ("--model.bias",),
                                      "model.scaling.kind": ("--model.scaling.kind",),
                                      "model.scaling.factor": ("--model.scaling.factor",), "seed": ("--seed",)}


def test_a_field_added_elsewhere_renames_no_existing_flag():
    before, after = _options(flags(Outer)), _options(flags(Grown))
    assert after == {**before, "kind": ("--kind",)}


def test_aliases_are_listed_and_legacy_spellings_accepted_but_not_listed():
    parser = argparse.ArgumentParser()
    flag_list = add_flags(parser, Outer, aliases={"width": "model.width"}, legacy={"kind": "model.scaling.kind",
                                                                                   "bias": "model.bias"})
    args = parser.parse_args(["--width", "4", "--kind", "yarn", "--no-bias"])
    assert given_values(args, flag_list) == {"model.width": 4, "model.scaling.kind": "yarn", "model.bias": False}
    text = parser.format_help()
    assert "--model.width WIDTH, --width WIDTH" in text
    assert "--model.scaling.kind" in text and "--kind" not in text and "--no-bias" not in text
    assert parse_assignment("kind=dynamic", flag_list) == ("model.scaling.kind", "dynamic")


@pytest.mark.parametrize("kwargs,named", [
    (dict(aliases={"seed": "model.width"}), "--seed"),                        # an alias shadows a field
    (dict(aliases={"w": "model.width"}, legacy={"w": "seed"}), "--w"),        # two tables give one name
    (dict(legacy={"model.bias": "seed"}), "--model.bias"),                    # a legacy name shadows a field
    (dict(aliases={"no-model.bias": "seed"}), "--no-model.bias"),             # ... or a bool flag's negation
    (dict(reserved=frozenset({"--seed"})), "--seed"),                         # a field takes a run argument
])
def test_one_flag_naming_two_things_is_refused(kwargs, named):
    with pytest.raises(ValueError, match=f"flag {named} of Outer would name both"):
        flags(Outer, **kwargs)


def test_an_alias_of_no_field_is_refused():
    with pytest.raises(ValueError, match="--depth of Outer names 'model.depth', which is no flag"):
        flags(Outer, aliases={"depth": "model.depth"})


def _command_parser(name):
    parser = argparse.ArgumentParser(prog=name)
    return parser, script.build_parser(name, parser=parser)[1]


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_every_command_gives_each_option_string_one_field(name):
    """Building the parser refuses a collision; here each option string also reaches exactly one dest."""
    parser, flag_list = _command_parser(name)
    dests = collections.defaultdict(set)
    for action in parser._actions:
        for option in action.option_strings:
            dests[option].add(action.dest)
    assert all(len(d) == 1 for d in dests.values())
    for flag in flag_list:
        assert flag.options[0] == flag_name(flag.path)


def test_a_train_config_json_loads_under_old_and_dotted_flags(tmp_path):
    """A run's config.json (nested field names, unchanged by the flag names) with flags of both spellings."""
    exp = load("micro_training")
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"experiment": "micro_training",
                                "config": {"seeds": [3], "base": {"steps": 7, "model": {"depth": 1, "width": 16}}}}))
    parser, flag_list = _command_parser("micro_training")
    args = parser.parse_args(["--config", str(path), "--init-std", "0.5", "--base.lr", "0.01"])
    cfg = script.config_from_args(exp, args, flag_list)
    assert (cfg.seeds, cfg.base.steps, cfg.base.model.depth, cfg.base.model.width) == ((3,), 7, 1, 16)
    assert (cfg.base.model.init_std, cfg.base.lr) == (0.5, 0.01)
