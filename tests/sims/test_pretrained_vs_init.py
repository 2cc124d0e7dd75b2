"""sims/pretrained_vs_init.py end to end at smoke size on a tiny transformers-saved GPT-2."""

import csv
import json
import pathlib

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from lostmid_jax.analysis import influence_profile  # noqa: E402
from lostmid_jax import cli  # noqa: E402
from lostmid_jax.experiments import pretrained_vs_init as compare  # noqa: E402
from lostmid_jax.experiments import script  # noqa: E402
from lostmid_jax.nn import load_hf  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def weights(tmp_path_factory):
    torch.set_num_threads(1)
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=64, n_embd=16, n_layer=2, n_head=2, n_positions=32)
    path = tmp_path_factory.mktemp("gpt2")
    transformers.GPT2LMHeadModel(config).eval().save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def smoke_run(weights, tmp_path_factory):
    out = tmp_path_factory.mktemp("compare") / "run"
    argv = ["--weights", str(weights), "--smoke", "--seeds", "1", "--length", "16", "--no-progress", "--out", str(out)]
    assert script.main("pretrained_vs_init", argv) == 0
    return out


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_run_directory(smoke_run, weights):
    names = {p.name for p in smoke_run.iterdir()}
    assert {"config.json", "metrics.csv", "profiles.csv", "alphas.csv", "table.txt", "profiles.png"} <= names
    config = json.loads((smoke_run / "config.json").read_text())
    assert config["config"]["weights"] == str(weights) and config["config"]["length"] == 16
    assert config["model"]["position"] == "learned" and config["versions"]["jax"]
    metrics = _rows(smoke_run / "metrics.csv")
    assert [r["model"] for r in metrics] == ["pretrained", "init"]
    for r in metrics:
        assert r["method"] == "exact" and int(r["depth"]) == 2
        assert -1 <= float(r["spearman_measured"]) <= 1 and 0 <= float(r["wasserstein_fitted"]) <= 1
        assert 0 < float(r["a_fit"]) <= 1
    assert len(_rows(smoke_run / "profiles.csv")) == 2 * 16
    assert len(_rows(smoke_run / "alphas.csv")) == 2 * 2
    assert "Spearman(pretrained profile, init profile)" in (smoke_run / "table.txt").read_text()


def test_pretrained_profile_is_the_engine_output(smoke_run, weights):
    """The recorded pretrained profile is influence_profile on seed 0's embedded tokens, normalized."""
    _, model = load_hf(weights)
    tokens = np.random.default_rng(0).integers(0, 64, size=16).astype(np.int32)
    norms = influence_profile(model, model.embed(tokens), method="exact").norms
    rows = [r for r in _rows(smoke_run / "profiles.csv") if r["model"] == "pretrained"]
    np.testing.assert_allclose([float(r["norm_mean"]) for r in rows], norms, rtol=1e-6)
    np.testing.assert_allclose([float(r["p_mean"]) for r in rows], norms / norms.sum(), rtol=1e-6)


def test_bad_arguments_exit_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as err:
        script.main("pretrained_vs_init", ["--weights", str(tmp_path / "nowhere"), "--smoke"])
    assert err.value.code == 2 and "nowhere" in capsys.readouterr().err


def test_length_beyond_positions_exit_2(weights, tmp_path, capsys):
    with pytest.raises(SystemExit) as err:
        script.main("pretrained_vs_init", ["--weights", str(weights), "--length", "64", "--out", str(tmp_path), "--no-progress"])
    assert err.value.code == 2 and "max_positions" in capsys.readouterr().err


def test_script_entry_point():
    text = (ROOT / "sims" / "pretrained_vs_init.py").read_text()
    assert 'main("pretrained_vs_init"' in text


def test_registers_as_lostmid_subcommand(weights):
    """`lostmid compare` builds this experiment's config from its flags."""
    parser = cli.build_parser("compare")
    args = parser.parse_args(["compare", "--weights", str(weights), "--smoke"])
    cfg = script.config_from_args(compare, args, args._flags)
    assert isinstance(cfg, compare.Config) and cfg.length == compare.SMOKE["length"]
