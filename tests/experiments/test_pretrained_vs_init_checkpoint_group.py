"""compare's checkpoint group (probes.settings.CheckpointSource): --weights / --allow-download as aliases of the
dotted flags, old flat config.json files (written before the group) read into it, and the title unchanged."""

import json
import pathlib

import pytest

from lostmid_jax.experiments import diagnose, script
from lostmid_jax.experiments import pretrained_vs_init as compare
from lostmid_jax.probes.settings import CheckpointSettings, CheckpointSource
from lostmid_jax.runs.config import from_dict, jsonable

FLAT = pathlib.Path(__file__).parents[1] / "data" / "configs" / "compare_smoke_flat.json"


def test_short_and_dotted_flags_build_the_same_checkpoint():
    built = []
    for argv in (["--weights", "org/m", "--allow-download"],
                 ["--checkpoint.weights", "org/m", "--checkpoint.allow-download"]):
        parser, flags = script.build_parser(compare.NAME)
        built.append(script.config_from_args(compare, parser.parse_args(argv), flags))
    assert built[0] == built[1]
    assert built[0].checkpoint == CheckpointSource(weights="org/m", allow_download=True)
    assert type(built[0].checkpoint) is CheckpointSource  # no dtype: compare has none


def test_a_flat_config_json_of_earlier_runs_reads_into_the_group():
    """config.json of a --smoke run written by the code before the group (flat weights, allow_download): the same
    Config as the smoke flags build now; written back, it holds the group and no flat field."""
    stored = json.loads(FLAT.read_text())["config"]
    assert stored["weights"] == compare.RANDOM_TINY and "checkpoint" not in stored
    cfg = from_dict(compare.Config, dict(stored, weights="org/elsewhere", allow_download=True))
    assert cfg.checkpoint == CheckpointSource(weights="org/elsewhere", allow_download=True)
    assert cfg.influence.length == stored["influence"]["length"] == 16 and cfg.band == stored["band"]
    now = jsonable(cfg)
    assert now["checkpoint"] == {"weights": "org/elsewhere", "allow_download": True} and "weights" not in now
    assert from_dict(compare.Config, now) == cfg


def test_a_flag_wins_over_a_flat_config_file():
    parser, flags = script.build_parser(compare.NAME)
    args = parser.parse_args(["--config", str(FLAT), "--weights", "org/m"])
    cfg = script.config_from_args(compare, args, flags)
    assert cfg.checkpoint == CheckpointSource(weights="org/m") and cfg.influence.seeds == 3


@pytest.mark.parametrize("weights,title", [(compare.RANDOM_TINY, "tiny random GPT-2"), ("org/model", "org/model"),
                                           (diagnose.RANDOM_TINY, "tiny random Llama")])
def test_titles_name_the_checkpoint(weights, title):
    assert compare.Config(checkpoint={"weights": weights}).title == title
    assert CheckpointSettings(weights=weights).title == title


def test_a_directory_is_titled_by_its_name(tmp_path):
    (tmp_path / "my-gpt2").mkdir()
    assert compare.Config(checkpoint={"weights": str(tmp_path / "my-gpt2")}).title == "my-gpt2"


@pytest.mark.parametrize("fields,message", [({"weights": ""}, "^weights must be a checkpoint directory or hub id"),
                                            ({"weights": "x", "allow_download": "maybe"}, "^allow_download"),
                                            ({"weights": "x", "dtype": "float32"}, "dtype")])
def test_the_group_refuses_bad_fields(fields, message):
    with pytest.raises((ValueError, TypeError), match=message):
        compare.Config(checkpoint=fields)


def test_diagnose_keeps_its_checkpoint_fields_in_order():
    """CheckpointSettings extends the source: config.json of diagnose and remedies keeps weights, allow_download,
    dtype, in that order."""
    assert list(jsonable(CheckpointSettings(weights="x"))) == ["weights", "allow_download", "dtype"]
    assert list(jsonable(CheckpointSource(weights="x"))) == ["weights", "allow_download"]
