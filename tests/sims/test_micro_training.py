"""sims/micro_training.py (= lostmid train): validation, a tiny end-to-end run, resume."""

import json
import pathlib

import pytest

from lostmid_jax import io
from lostmid_jax.experiments import script

TINY = ["--smoke", "--no-progress", "--width", "16", "--steps", "2", "--snapshots", "0,2", "--seeds", "0",
        "--interventions", "curriculum", "--task", "retrieval"]


@pytest.mark.parametrize("argv,name", [(["--steps", "0"], "steps"), (["--seeds", "1,1"], "seeds"),
                                       (["--interventions", "magic"], "interventions"), (["--task", "qa"], "task"),
                                       (["--attn-impl", "gpu"], "attn_impl")])
def test_bad_arguments_exit_2_naming_the_argument(argv, name, capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        script.main("micro_training", argv + ["--out", str(tmp_path / "x")])
    assert exc.value.code == 2 and name in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


@pytest.mark.slow
def test_tiny_run_writes_run_directory_and_resumes(tmp_path, capsys):
    out = tmp_path / "run"
    assert script.main("micro_training", TINY + ["--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "valley depth" in text and "curriculum vs baseline" in text
    rows = io.read_csv(out / "snapshots.csv")
    assert {(r["intervention"], r["seed"], r["step"]) for r in rows} == {
        (v, "0", s) for v in ("none", "curriculum") for s in ("0", "2")}
    for name in ("config.json", "profiles.csv", "verdict.txt", "valley_vs_step.png", "pathways_vs_step.png",
                 "profiles_at_steps.png", "accuracy_by_needle_bin.png", "none/seed0/metrics.jsonl",
                 "curriculum/seed0/ckpt"):
        assert (out / name).exists(), name
    config = json.loads((out / "config.json").read_text())
    assert config["config"]["seeds"] == [0] and config["attn_impl_used"] == "fused_cpu"
    before = (out / "snapshots.csv").read_text()
    assert script.main("micro_training", TINY + ["--out", str(out), "--no-figures"]) == 0  # everything restored, nothing retrained
    assert (out / "snapshots.csv").read_text() == before
