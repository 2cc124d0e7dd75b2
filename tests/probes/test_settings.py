"""The shared setting groups of diagnose and remedies: each checks its own fields (one line naming it), and the
flat names of earlier releases map onto them (flags and config.json)."""

import json
import pathlib

import pytest

from lostmid_jax.experiments import diagnose, remedies, script
from lostmid_jax.probes.settings import FLAT_FIELDS, SHORT_FLAGS, CheckpointSettings, ProbeDesign

GOLDEN = pathlib.Path(__file__).parents[1] / "data" / "configs"


@pytest.mark.parametrize("group,fields,message", [
    (CheckpointSettings, dict(weights=""), "^weights must be a checkpoint directory or hub id"),
    (CheckpointSettings, dict(weights="x", dtype="float16"), r"^dtype must be one of \('float32', 'bfloat16'\)"),
    (CheckpointSettings, dict(weights="x", allow_download="maybe"), "^allow_download"),
    (ProbeDesign, dict(mode="words"), "^mode must be one of"),
    (ProbeDesign, dict(mode="tokens", facts="f.jsonl"), "^facts is used by mode 'text' only"),
    (ProbeDesign, dict(passages=1), "^passages"),
    (ProbeDesign, dict(lengths=(32, 32)), "^lengths must be one or more distinct prompt lengths"),
    (ProbeDesign, dict(lengths=(4,)), "^lengths"),
])
def test_a_group_refuses_its_own_bad_fields(group, fields, message):
    with pytest.raises(ValueError, match=message):
        group(**fields)


def test_every_flat_field_has_a_group_and_a_short_flag():
    assert FLAT_FIELDS["weights"] == "checkpoint.weights" and FLAT_FIELDS["passages"] == "probe.passages"
    assert SHORT_FLAGS["allow-unknown-tokens"] == "probe.allow_unknown_tokens"
    assert len(FLAT_FIELDS) == len(SHORT_FLAGS) == 15


@pytest.mark.parametrize("exp", [diagnose, remedies])
def test_short_flags_and_dotted_flags_build_the_same_config(exp):
    short = ["--weights", "org/m", "--dtype", "bfloat16", "--allow-download", "--passages", "4", "--lengths", "64",
             "--examples", "7", "--seed", "3", "--allow-extrapolation"]
    dotted = ["--checkpoint.weights", "org/m", "--checkpoint.dtype", "bfloat16", "--checkpoint.allow-download",
              "--probe.passages", "4", "--probe.lengths", "64", "--probe.examples", "7", "--probe.seed", "3",
              "--probe.allow-extrapolation"]
    built = []
    for argv in (short, dotted):
        parser, flags = script.build_parser(exp.NAME)
        built.append(script.config_from_args(exp, parser.parse_args(argv), flags))
    assert built[0] == built[1]
    assert built[0].checkpoint == CheckpointSettings(weights="org/m", dtype="bfloat16", allow_download=True)
    assert built[0].probe == ProbeDesign(passages=4, lengths=(64,), examples=7, seed=3, allow_extrapolation=True)


@pytest.mark.parametrize("exp", [diagnose, remedies])
def test_an_old_flat_config_json_starts_a_run_with_flags_over_it(exp):
    """--config of a config.json written before the groups (a --smoke run of the code then), with a flag given."""
    parser, flags = script.build_parser(exp.NAME)
    args = parser.parse_args(["--config", str(GOLDEN / f"{exp.NAME}_smoke_flat.json"), "--passages", "4"])
    cfg = script.config_from_args(exp, args, flags)
    stored = json.loads((GOLDEN / f"{exp.NAME}_smoke_flat.json").read_text())["config"]
    assert cfg.checkpoint.weights == stored["weights"] and cfg.probe.passages == 4
    assert cfg.probe.lengths == tuple(stored["lengths"]) and cfg.batch == stored["batch"]
