"""experiments/micro_training/legacy_flags.py: every flag `lostmid train` took before its flags became dotted
paths still sets the same field, listed in --help only for the alias table's short names."""

import argparse
import collections
import dataclasses

from lostmid_jax.experiments import load, script
from lostmid_jax.experiments.arguments import given_values
from lostmid_jax.experiments.micro_training.legacy_flags import LEGACY_FLAGS
from lostmid_jax.runs.config import field_types, nested_class


def _parser():
    parser = argparse.ArgumentParser(prog="train")
    return parser, script.build_parser("micro_training", parser=parser)[1]


def _leaves(cls, prefix=""):
    hints = field_types(cls)
    for field in dataclasses.fields(cls):
        inner = nested_class(hints[field.name])
        yield from _leaves(inner, prefix + field.name + ".") if inner else [(field.name, prefix + field.name)]


def test_train_keeps_every_flag_of_earlier_releases():
    """`lostmid train` took each nested field's leaf name (where unique); every one still sets the same field,
    and is listed in --help only when the alias table names it."""
    exp = load("micro_training")
    parser, flag_list = _parser()
    by_path = {f.path: f for f in flag_list}
    text = parser.format_help()
    counts = collections.Counter(leaf for leaf, _ in _leaves(exp.Config))
    old = [(leaf, path) for leaf, path in _leaves(exp.Config) if counts[leaf] == 1 and "." in path and path in by_path]
    assert len(old) >= 70
    for leaf, path in old:
        option = "--" + leaf.replace("_", "-")
        action = parser._option_string_actions[option]
        assert action.dest == path, option
        listed = option in by_path[path].options
        assert listed == (f", {option}" in text), option
    assert "--kind" not in text and "--factor" not in text and "--init " not in text
    rope = ["--position", "rope", "--kind", "linear", "--factor", "4"]
    dotted = ["--base.model.position", "rope", "--base.model.rope-scaling.kind", "linear",
              "--base.model.rope-scaling.factor", "4"]
    assert given_values(parser.parse_args(rope), flag_list) == given_values(parser.parse_args(dotted), flag_list) \
        == {"base.model.position": "rope", "base.model.rope_scaling.kind": "linear",
            "base.model.rope_scaling.factor": 4.0}


def test_the_table_names_only_fields_and_each_once():
    exp = load("micro_training")
    paths = {path for _, path in _leaves(exp.Config)}
    assert set(LEGACY_FLAGS.values()) <= paths
    assert not set(LEGACY_FLAGS) & set(exp.CLI_ALIASES)
