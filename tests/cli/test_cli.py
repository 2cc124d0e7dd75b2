"""The `lostmid` command: lazy help, --version, flags generated from configs, --config, rerun, round trips."""

import csv
import dataclasses
import json
import subprocess
import sys

import pytest

from lostmid_jax import cli, runs
from lostmid_jax.experiments import EXPERIMENTS, load
from lostmid_jax.experiments.arguments import flags, int_list, nest, value_parser
from lostmid_jax.runs.config import from_dict, replace_path

HEAVY = ("jax", "flax", "matplotlib", "scipy", "tqdm", "torch", "optax", "orbax", "pandas")


HELP_ARGVS = [["--help"], ["sweep", "--help"], ["counterfactuals", "--help"], ["step0", "--help"],
              ["compare", "--help"], ["train", "--help"], ["theory", "--help"], ["rerun", "--help"], ["plot", "--help"],
              ["report", "--help"], ["table", "--help"], ["--version"]]


def test_help_imports_nothing_heavy():
    """`lostmid --help` / `lostmid SUB --help` load only the config module they describe: no jax, flax,
    matplotlib, scipy, tqdm or pandas (what made them take 7-16 s). One fresh interpreter runs them all in turn
    and reports the heavy modules loaded after each (the set only grows: each call's own imports are seen)."""
    code = ("import contextlib, io, json, sys\nfrom lostmid_jax.cli import main\nseen = []\n"
            f"for argv in {HELP_ARGVS!r}:\n"
            "    with contextlib.redirect_stdout(io.StringIO()) as out:\n"
            "        try:\n            main(argv)\n        except SystemExit:\n            pass\n"
            "    assert out.getvalue().strip(), argv\n"
            f"    seen.append([m for m in {HEAVY!r} if m in sys.modules])\n"
            "print('MODULES:' + json.dumps(seen))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stdout.splitlines() if x.startswith("MODULES:"))
    seen = json.loads(line[len("MODULES:"):])
    assert dict(zip(map(" ".join, HELP_ARGVS), seen)) == {" ".join(a): [] for a in HELP_ARGVS}


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out.strip().startswith("lostmid-jax ")


def test_help_shows_defaults_and_smoke_sizes(capsys):
    with pytest.raises(SystemExit):
        cli.main(["sweep", "--help"])
    text = " ".join(capsys.readouterr().out.split())  # as read, whatever the terminal width wraps
    assert "--power-b" in text and "(default: 0.5)" in text and "--smoke: 1,2,4,8,16,32" in text
    assert "--config FILE" in text


def test_a_misspelt_flag_gets_the_subcommands_usage_and_a_suggestion(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["step0", "--lenght", "64"])
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert "usage: lostmid step0" in err and "did you mean --length" in err and "Traceback" not in err
    with pytest.raises(SystemExit) as exc:
        cli.main(["sweep", "--zzzzzz"])  # nothing close: no suggestion, still the subcommand's usage
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "usage: lostmid sweep" in err and "did you mean" not in err


def test_help_lists_the_choices(capsys):
    from lostmid_jax.nn.presets import PRESETS

    with pytest.raises(SystemExit):
        cli.main(["step0", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    presets = text[text.index("--models.presets PRESETS"):text.index("--full, --no-full")]
    assert all(name in presets.replace("- ", "-") for name in PRESETS)
    length = text[text.index("--length LENGTH "):text.index("--method METHOD ")]
    from lostmid_jax.experiments.step0.config import DEFAULT_PRESETS

    named = [name for name in PRESETS if f"{name} " in length.replace("- ", "-")]
    assert named and set(named) <= set(DEFAULT_PRESETS), named


def test_value_parsers_follow_the_field_types():
    assert int_list("1-3,8") == (1, 2, 3, 8)
    assert value_parser(float | None)("none") is None
    assert value_parser(float | None)("0.5") == 0.5
    assert value_parser(tuple[float, ...])("0.1,1") == (0.1, 1.0)
    assert value_parser(tuple[str, ...])("") == ()
    assert value_parser(float | tuple[float, ...] | None)("0.5,0.25") == (0.5, 0.25)
    for parser, text in ((value_parser(float | None), ""), (value_parser(float | None), "1,2"),
                         (value_parser(int), "x"), (value_parser(tuple[int, ...]), "1,y")):
        with pytest.raises(ValueError):
            parser(text)


def test_every_config_field_has_a_flag():
    for name in EXPERIMENTS:
        exp = load(name)
        paths = {f.path for f in flags(exp.Config, aliases=getattr(exp, "CLI_ALIASES", None),
                                      hidden=getattr(exp, "CLI_HIDDEN", frozenset()))}
        top = {f.name for f in dataclasses.fields(exp.Config)}
        assert {p.split(".")[0] for p in paths} <= top
        hidden = getattr(exp, "CLI_HIDDEN", frozenset())
        for field in dataclasses.fields(exp.Config):
            assert any(p == field.name or p.startswith(field.name + ".") for p in paths) or field.name in hidden


@pytest.mark.parametrize("argv,message", [
    (["sweep", "--power-b", "1,2"], "--power-b"),
    (["sweep", "--power-b", ""], "--power-b"),
    (["sweep", "--band", "0.7"], "band"),
    (["counterfactuals", "--length", "1"], "length"),
    (["theory", "--backend", "log", "--dps", "0"], "--dps"),
])
def test_bad_values_exit_2_naming_the_argument(argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        cli.main([*argv, "--out", str(tmp_path / "never")] if argv[0] != "theory" else argv)
    assert exc.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "never").exists()


SWEEP = ["sweep", "--smoke", "--depths", "1,2,3", "--no-progress", "--no-figures"]


@pytest.fixture(scope="module")
def sweep_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "run"
    assert cli.main([*SWEEP, "--out", str(out)]) == 0
    return out


def _csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_rerun_reproduces_results_exactly(sweep_run, tmp_path):
    assert cli.main(["rerun", str(sweep_run), "--out", str(tmp_path / "again"), "--no-progress", "--no-figures"]) == 0
    assert (tmp_path / "again" / "results.csv").read_bytes() == (sweep_run / "results.csv").read_bytes()
    assert (tmp_path / "again" / "verdict.txt").read_bytes() == (sweep_run / "verdict.txt").read_bytes()
    config = json.loads((tmp_path / "again" / "config.json").read_text())
    assert config["experiment"] == "depth_sweep" and config["smoke"] is True


def test_rerun_with_set_changes_only_that_field(sweep_run, tmp_path):
    assert cli.main(["rerun", str(sweep_run), "--set", "depths=2", "--set", "power_b=none",
                     "--out", str(tmp_path / "b"), "--no-progress", "--no-figures"]) == 0
    rows = _csv(tmp_path / "b" / "results.csv")
    assert {r["depth"] for r in rows} == {"2"} and {r["schedule"] for r in rows} == {"constant"}
    old = [r for r in _csv(sweep_run / "results.csv") if r["depth"] == "2" and r["schedule"] == "constant"]
    assert rows == old


def test_rerun_refuses_bad_input(sweep_run, tmp_path, capsys):
    for argv, message in ((["rerun", str(tmp_path)], "config.json"),
                          (["rerun", str(sweep_run), "--set", "nope=1"], "nope"),
                          (["rerun", str(sweep_run), "--set", "depths"], "key=value"),
                          (["rerun", str(sweep_run), "--out", str(sweep_run)], "differ")):
        with pytest.raises(SystemExit) as exc:
            cli.main(argv)
        assert exc.value.code == 2 and message in capsys.readouterr().err


def test_config_file_then_flags(sweep_run, tmp_path):
    """--config takes a run's config.json; flags given after it win."""
    assert cli.main(["sweep", "--config", str(sweep_run / "config.json"), "--depths", "3",
                     "--out", str(tmp_path / "c"), "--no-progress", "--no-figures"]) == 0
    config = json.loads((tmp_path / "c" / "config.json").read_text())["config"]
    assert config["depths"] == [3] and config["alphas"] == [0.25, 0.5, 1.0] and config["lengths"] == [256]


def _gpt2_dir(tmp_path):
    config = dict(model_type="gpt2", n_layer=2, n_embd=16, n_head=2, n_positions=32, vocab_size=64)
    (tmp_path / "gpt2").mkdir()
    (tmp_path / "gpt2" / "config.json").write_text(json.dumps(config))
    (tmp_path / "gpt2" / "model.safetensors").write_bytes(b"not read: only the config is built")
    return str(tmp_path / "gpt2")


def _smoke_config(name, tmp_path):
    exp = load(name)
    values = nest(exp.SMOKE)
    if name == "pretrained_vs_init":
        values["checkpoint"]["weights"] = _gpt2_dir(tmp_path)
    return exp, from_dict(exp.Config, values)


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_every_config_round_trips_through_config_json(name, tmp_path):
    """Config(**json.load(config.json)["config"]) gives the same config back (lists accepted for tuples)."""
    exp, cfg = _smoke_config(name, tmp_path)
    runs.write_config(tmp_path, cfg, experiment=exp.NAME)
    stored = json.loads((tmp_path / "config.json").read_text())["config"]
    assert exp.Config(**stored) == cfg
    assert from_dict(exp.Config, stored) == cfg


def test_replace_path_validates_again():
    exp = load("depth_sweep")
    cfg = exp.Config()
    assert replace_path(cfg, "band", 0.2).band == 0.2
    with pytest.raises(ValueError, match="band"):
        replace_path(cfg, "band", 0.9)
    with pytest.raises(ValueError, match="no field"):
        replace_path(cfg, "nope", 1)
