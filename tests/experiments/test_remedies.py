"""sims/remedies.py (= lostmid remedies): the offline smoke run, its tables, verdict and figures, and the refusals."""

import json
import pathlib

import pandas as pd
import pytest

# 25 CPU-s of shared smoke run: under -m extended (CI runs it); probes/remedies' library tests stay default
pytestmark = pytest.mark.extended

from lostmid_jax import cli
from lostmid_jax.experiments import remedies, script

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def smoke_run(smoke_runs):
    """The shared `lostmid remedies --smoke` run (tests/conftest.py), offline; read only."""
    return smoke_runs("remedies")


def test_smoke_writes_its_checkpoint_and_the_run(smoke_run):
    names = {p.name for p in smoke_run.iterdir()}
    assert {"config.json", "columns.csv", "accuracy.csv", "measurements.csv", "effects.csv", "received.csv",
            "influence.csv", "verdict.txt", "table.txt", "fig1_accuracy.png", "fig2_effects.png",
            "fig3_received.png", "checkpoint"} <= names
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= {p.name for p in (smoke_run / "checkpoint").iterdir()}
    assert json.loads((smoke_run / "config.json").read_text())["smoke"] is True


def test_tables_are_documented_and_one_row_per_remedy(smoke_run):
    from lostmid_jax.runs import load_run

    run = load_run(smoke_run)
    for name, frame in run.tables.items():
        assert list(frame.columns) == [c for c in remedies.COLUMNS[f"{name}.csv"] if c in frame.columns], name
    effects = run.tables["effects"]
    assert list(effects["remedy"]) == list(remedies.SMOKE["remedies"])
    assert set(effects["verdict"]) <= {"helps", "hurts", "no difference beyond noise", "no-op at this length",
                                       "not applicable"}
    # dynamic scaling within the original context (max_positions 512 > T = 48): named, not measured
    noop = effects[effects["remedy"] == "rope_scaling:dynamic:2"].iloc[0]
    assert noop["verdict"] == "no-op at this length" and pd.isna(noop["middle"]) and noop["step0_ratio"] == 1.0
    measurements = run.tables["measurements"].set_index("remedy")
    assert measurements.loc["rope_scaling:dynamic:2", "applied"] == 0
    assert measurements.loc["rope_scaling:dynamic:2", "note"].startswith("no-op at this length: dynamic scaling")
    effects = effects[effects["verdict"] != "no-op at this length"]
    for col in ("middle", "ends", "overall", "middle_logprob"):
        assert (effects[f"{col}_lo"] <= effects[col]).all() and (effects[col] <= effects[f"{col}_hi"]).all()
    acc = run.tables["accuracy"]
    assert ((acc["accuracy_lo"] <= acc["accuracy"]) & (acc["accuracy"] <= acc["accuracy_hi"])).all()
    assert sorted(set(acc["passage"])) == [1, 2, 3]
    # the theory's prediction: none for RoPE changes, a changed prior for sinks with a window
    rope = effects[effects["kind"].isin(["rope_base", "rope_scaling"])]
    assert (rope["step0_ratio"] == 1.0).all() and rope["theory"].str.startswith("no change").all()
    sinks = effects[effects["kind"] == "sinks"].iloc[0]
    assert sinks["step0_ratio"] != 1.0 and "changes the prior itself" in sinks["theory"]
    assert "(undocumented)" not in set(pd.read_csv(smoke_run / "columns.csv")["meaning"])


def test_verdict_names_each_remedy_and_the_kv_cache(smoke_run):
    text = (smoke_run / "verdict.txt").read_text()
    for spec in remedies.SMOKE["remedies"]:
        assert f"{spec}: " in text and "in the middle" in text
    assert "KV-cache" in text and "smoke run" in text and "Step 0:" in text
    short, details = text.split("\nDetails\n")
    assert "  no-op at this length: rope_scaling:dynamic:2" in short and "Step 0:" not in short
    assert "rope_scaling:dynamic:2: no-op at this length: dynamic scaling" in details


def test_figures_redraw_from_the_tables(smoke_run):
    from lostmid_jax.runs import load_run

    run = load_run(smoke_run)
    assert set(remedies.figures(run.tables, run.config)) == {"fig1_accuracy", "fig2_effects", "fig3_received"}


@pytest.mark.parametrize("argv,name", [(["--passages", "1"], "passages"), (["--remedies", "rope_base:0"], "remedies"),
                                       (["--remedies", "markers:0.5", "--mode", "tokens", "--marker", "x"], "marker"),
                                       (["--weights", "/nowhere/ckpt"], "nowhere")])
def test_bad_arguments_exit_2(argv, name, tmp_path, capsys):
    with pytest.raises(SystemExit) as err:
        script.main("remedies", ["--smoke"] + argv + ["--out", str(tmp_path / "x")])
    text = capsys.readouterr().err
    assert err.value.code == 2 and name in text and "Traceback" not in text
    assert not (tmp_path / "x").exists()


def test_refusals_before_any_work(tmp_path):
    """A checkpoint without a tokenizer in text mode, and a length beyond a learned position table."""
    from flax import nnx

    from lostmid_jax.nn import Decoder, preset, save_hf

    cfg = preset("gpt2-small", depth=1, width=16, heads=2, vocab_size=64, max_positions=32)
    save_hf(Decoder(cfg, rngs=nnx.Rngs(0)), cfg, tmp_path / "gpt2")
    with pytest.raises(ValueError, match="weights: .* holds no tokenizer"):
        remedies.resolve(script.build_config(remedies, weights=str(tmp_path / "gpt2"), lengths=16))
    with pytest.raises(ValueError, match="lengths: .*max_positions=32"):
        remedies.resolve(script.build_config(remedies, weights=str(tmp_path / "gpt2"), mode="tokens", lengths=40,
                                             marker="3"))


def test_script_and_subcommand():
    assert 'main("remedies"' in (ROOT / "sims" / "remedies.py").read_text()
    parser = cli.build_parser("remedies")
    args = parser.parse_args(["remedies", "--smoke"])
    cfg = script.config_from_args(remedies, args, args._flags)
    assert isinstance(cfg, remedies.Config) and cfg.probe.lengths == remedies.SMOKE["probe.lengths"] == (cfg.length,)


def test_the_smoke_run_finishes_within_its_estimate(smoke_run):
    """The config's estimate of the run's CPU seconds (probes.cost) bounds the smoke run, loosely (20 times)."""
    config = json.loads((smoke_run / "config.json").read_text())
    used, estimate = config["cpu_seconds"], config["estimated_cpu_seconds"]
    assert 0 < used <= estimate <= 20 * used, (used, estimate)


def test_a_remedy_beyond_the_trained_context_is_marked(tmp_path):
    """T = 512 fits the tiny Llama's 512 positions; the marker makes it 513: refused, then with
    --allow-extrapolation measured and marked in measurements.csv, table.txt and the verdict."""
    argv = ["--smoke", "--lengths", "512", "--remedies", "markers:0.5,reorder:last", "--no-figures", "--no-progress"]
    with pytest.raises(ValueError, match="lengths: T = 512 needs 513 positions"):
        remedies.resolve(script.config_from_args(remedies, *_parsed(argv)))
    out = tmp_path / "run"
    assert cli.main(["remedies", *argv, "--allow-extrapolation", "--out", str(out)]) == 0
    rows = pd.read_csv(out / "measurements.csv")
    assert dict(zip(rows["remedy"], rows["extrapolated"])) == {"none": 0, "markers:0.5": 1, "reorder:last": 0}
    import re

    assert re.search(r"\nmarkers:0\.5 +513\* ", (out / "table.txt").read_text())
    assert "Extrapolated (--allow-extrapolation): markers:0.5 read beyond" in (out / "verdict.txt").read_text()


def _parsed(argv):
    parser = cli.build_parser("remedies")
    args = parser.parse_args(["remedies", *argv])
    return args, args._flags
