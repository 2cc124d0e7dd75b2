"""The Step-0 measurement group (experiments.influence_settings): its checks, its flags in the three
experiments that nest it, and config.json files written before it existed (tests/data/golden)."""

import json
import pathlib
import shutil

import pytest

from lostmid_jax.experiments.influence_settings import InfluenceSettings
from lostmid_jax.experiments.script import build_parser, config_from_args, rerun_config
from lostmid_jax.runs.config import from_dict, renamed, to_dict, unchecked

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "data" / "golden"
# the flags the golden step0 run was made with (tests/conftest.py SHARED_FLAGS, tests/data/golden/README.md)
TOY16_FLAGS = ["--preset", "toy", "--length", "16", "--seeds", "2", "--variants", "native,nopos", "--heat-length", "8",
               "--n-boot", "200"]


@pytest.mark.parametrize("kwargs, named", [({"length": 1}, "influence.length"), ({"method": "fast"}, "influence.method"),
                                           ({"probes": 0}, "influence.probes"), ({"seeds": 0}, "influence.seeds"),
                                           ({"input": "noise"}, "influence.input"), ({"chunk": -1}, "influence.chunk")])
def test_the_group_refuses_bad_values_naming_the_dotted_field(kwargs, named):
    with pytest.raises(ValueError, match=named.replace(".", r"\.")):
        InfluenceSettings(**kwargs)


def test_an_experiment_narrows_the_group():
    settings = InfluenceSettings(method="auto", seeds=2, length=4)
    settings.require(methods=("auto", "exact"), minimums={"seeds": 2})
    with pytest.raises(ValueError, match=r"influence\.method must be one of \('exact',\)"):
        settings.require(methods=("exact",))
    with pytest.raises(ValueError, match=r"influence\.length must be an int >= 8, got 4"):
        settings.require(methods=("auto",), minimums={"length": 8})
    with pytest.raises(ValueError, match=r"influence\.probes must be given"):
        settings.require(methods=("auto",), given=("probes",))


@pytest.mark.parametrize("name", ["step0", "step0_study", "pretrained_vs_init"])
def test_short_flags_and_dotted_flags_set_the_same_field(name):
    parser, flag_list = build_parser(name)
    extra = ["--weights", "random:tiny-gpt2"] if name == "pretrained_vs_init" else []
    short = parser.parse_args(extra + ["--length", "24", "--seeds", "5", "--method", "exact", "--probes", "3"])
    dotted = parser.parse_args(extra + ["--influence.length", "24", "--influence.seeds", "5",
                                        "--influence.method", "exact", "--influence.probes", "3"])
    from lostmid_jax.experiments import load

    exp = load(name)
    a, b = config_from_args(exp, short, flag_list), config_from_args(exp, dotted, flag_list)
    assert a == b and a.influence == dataclass_replace(exp.Config, length=24, seeds=5, method="exact", probes=3)


def dataclass_replace(config_class, **fields):
    """The experiment's default InfluenceSettings with ``fields`` replaced."""
    import dataclasses

    default = next(f.default for f in dataclasses.fields(config_class) if f.name == "influence")
    return dataclasses.replace(default, **fields)


def test_the_golden_runs_old_config_json_reads_as_the_same_flags_give_today(tmp_path):
    """tests/data/golden/step0_toy16_config.json was written by the code before the groups (flat "length",
    "seeds", "presets"): read back, it is the config the same flags build now."""
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(GOLDEN / "step0_toy16_config.json", run / "config.json")
    old = json.loads((run / "config.json").read_text())["config"]
    assert {"presets", "length", "seeds", "param_dtype"} <= set(old) and "influence" not in old
    exp, cfg, smoke = rerun_config(run)
    parser, flag_list = build_parser("step0")
    assert cfg == config_from_args(exp, parser.parse_args(TOY16_FLAGS), flag_list) and not smoke
    assert (cfg.models.presets, cfg.influence.length, cfg.influence.seeds) == (("toy",), 16, 2)
    stored = to_dict(cfg)  # what a run writes now: the groups nested
    assert stored["influence"]["length"] == 16 and stored["models"]["presets"] == ["toy"] and "length" not in stored


@pytest.mark.parametrize("name, file", [("step0_study", "step0_study_smoke_config.json"),
                                        ("pretrained_vs_init", "pretrained_vs_init_smoke_config.json")])
def test_old_smoke_config_json_reads_as_the_smoke_config_of_today(name, file, tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(GOLDEN / file, run / "config.json")
    exp, cfg, smoke = rerun_config(run)
    parser, flag_list = build_parser(name)
    today = config_from_args(exp, parser.parse_args(["--smoke"]), flag_list)
    if hasattr(exp, "resolve"):  # compare stores "auto" resolved (runner.Resolved.config)
        today = exp.resolve(today).config
    assert smoke and cfg == today


def test_a_flag_over_an_old_file_wins_and_unchecked_reads_old_keys_too():
    from lostmid_jax.experiments.step0 import Config

    values = {"length": 16, "presets": ["toy"], "influence": {"length": 24}}
    assert renamed(Config, values) == {"influence": {"length": 24}, "models": {"presets": ["toy"]}}
    assert from_dict(Config, values).influence.length == 24
    kept = unchecked(Config, {"length": 1, "presets": ["toy"], "influence": {"seeds": 3}})  # no longer valid: kept
    assert (kept.influence.length, kept.influence.seeds, kept.models.presets) == (1, 3, ("toy",))
