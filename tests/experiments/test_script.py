"""experiments/script.py: an experiment as a command: --config files, run options, errors in one line, rerun."""

import argparse
import errno
import json

import pytest

from lostmid_jax.experiments import load, script


def test_config_files_hold_a_run_record_or_a_plain_object(tmp_path):
    run = tmp_path / "config.json"
    run.write_text(json.dumps({"experiment": "depth_sweep", "config": {"depths": [1, 2]}}))
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({"depths": [3]}))
    assert script.read_config_file(str(run)) == {"depths": [1, 2]}
    assert script.read_config_file(str(plain)) == {"depths": [3]}
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(ValueError, match=r"--config: .*bad.json must hold a JSON object \{...\}, got a list"):
        script.read_config_file(str(bad))
    with pytest.raises(ValueError, match=r"--config: .*missing.json does not exist"):
        script.read_config_file(str(tmp_path / "missing.json"))


def test_run_options_are_reserved_and_differ_by_experiment():
    sweep, train = (script.run_options(load(n)) for n in ("depth_sweep", "micro_training"))
    assert {"--out", "--root", "--config", "--smoke", "--no-progress", "--no-figures", "--limits"} <= sweep
    assert "--devices" in train and "--devices" not in sweep  # only where the experiment uses devices
    assert "--replace-unfinished" in sweep and "--replace-unfinished" not in train  # train resumes instead


def test_config_from_args_layers_defaults_file_smoke_and_flags(tmp_path):
    exp = load("depth_sweep")
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"depths": [5], "lengths": [64]}))
    parser = argparse.ArgumentParser()
    _, flags = script.build_parser("depth_sweep", parser=parser)
    cfg = script.config_from_args(exp, parser.parse_args(["--config", str(path), "--smoke", "--lengths", "32"]), flags)
    assert cfg.lengths == (32,)  # the flag wins over the file and --smoke
    assert cfg.depths == tuple(exp.SMOKE["depths"])  # --smoke wins over the file


def test_one_line_names_the_file_of_an_os_error():
    err = OSError(errno.ENOSPC, "No space left on device", "/runs/x/table.csv")
    assert script.one_line(err) == "/runs/x/table.csv: No space left on device"
    assert script.one_line(ValueError("depths: bad")) == "depths: bad"


def test_rerun_config_refuses_unknown_experiments_and_fields(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"experiment": "nope", "config": {}}))
    with pytest.raises(ValueError, match="names no known experiment"):
        script.rerun_config(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({"experiment": "depth_sweep", "config": {"depths": [1]}}))
    exp, cfg, smoke = script.rerun_config(tmp_path, ["depths=2-4"])
    assert exp.NAME == "depth_sweep" and cfg.depths == (2, 3, 4) and smoke is False
    with pytest.raises(ValueError, match="no field 'nope'"):
        script.rerun_config(tmp_path, ["nope=1"])
