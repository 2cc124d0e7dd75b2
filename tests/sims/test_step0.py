"""sims/step0_jacobian.py end to end at a tiny size: files, numbers, resume, bad arguments."""

import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from lostmid_jax.analysis import metrics
from lostmid_jax.experiments import script
from lostmid_jax.experiments.step0.measure import load_unit
from lostmid_jax.analysis.theory_fit import theory_row
from lostmid_jax.io import read_csv

ROOT = pathlib.Path(__file__).resolve().parents[2]
ARGS = ["--preset", "toy", "--length", "16", "--seeds", "2", "--variants", "native,nopos", "--heat-length", "8",
        "--no-progress"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("step0") / "run"
    assert script.main("step0", [*ARGS, "--out", str(out)]) == 0
    return out


def test_run_directory_contents(run_dir):
    names = {p.name for p in run_dir.iterdir()}
    assert {"config.json", "profiles.csv", "metrics.csv", "alphas.csv", "table.txt", "verdict.txt",
            "overlay_toy.png", "heatmap_toy.png", "units"} <= names
    assert sorted(p.name for p in (run_dir / "units").iterdir()) == [
        "toy__native__s0.npz", "toy__native__s1.npz", "toy__nopos__s0.npz", "toy__nopos__s1.npz"]
    config = json.loads((run_dir / "config.json").read_text())
    assert config["status"] == "done" and config["config"]["length"] == 16 and config["versions"]["jax"]
    assert config["peak_rss_gb"] > 0
    verdict = (run_dir / "verdict.txt").read_text()
    assert "RoPE on vs off" in verdict and "peak-to-trough" in verdict
    assert ("REPRODUCED" in verdict) or ("NOT reproduced" in verdict)


def test_numbers_recomputed_from_units(run_dir):
    """metrics.csv follows from the saved units through the public metric functions."""
    units = [load_unit(run_dir / "units" / f"toy__native__s{s}.npz") for s in (0, 1)]
    p = np.mean([u["norms_total"] / u["norms_total"].sum() for u in units], axis=0)
    row = theory_row(16, np.mean([u["alphas"] for u in units], axis=0))
    m = {r["variant"]: r for r in read_csv(run_dir / "metrics.csv")}["native"]
    assert float(m["spearman_measured"]) == pytest.approx(metrics.spearman(p, row), abs=1e-12)
    assert float(m["wasserstein_measured"]) == pytest.approx(metrics.wasserstein(p, row), abs=1e-12)
    prof = [r for r in read_csv(run_dir / "profiles.csv") if r["variant"] == "native" and r["pathway"] == "total"]
    np.testing.assert_allclose([float(r["p_mean"]) for r in prof], p, rtol=1e-12)
    sem = np.std([u["norms_total"] / u["norms_total"].sum() for u in units], axis=0, ddof=1) / np.sqrt(2)
    np.testing.assert_allclose([float(r["p_sem"]) for r in prof], sem, rtol=1e-9, atol=1e-15)
    # RoPE has no parameters: with the same seed, native and nopos share every weight
    off = load_unit(run_dir / "units" / "toy__nopos__s0.npz")
    assert not np.allclose(off["norms_total"], units[0]["norms_total"])
    # the value and score pathways are saved and consistent with the total (score small at init)
    assert np.all(units[0]["norms_score"][:-1] < 0.2 * units[0]["norms_total"][:-1])


def test_seed_parallel_profiles_equal_the_units(run_dir):
    """seed_profiles (the route of --devices n: seeds vmapped, model and input built from the traced seed)
    gives the profiles run_unit saved for each seed (here on one device; over 8 devices:
    tests/parallel/test_parallel_devices.py)."""
    from lostmid_jax.experiments.configs import from_dict
    from lostmid_jax.experiments.step0.config import Config
    from lostmid_jax.experiments.step0.measure import seed_profiles

    cfg = from_dict(Config, json.loads((run_dir / "config.json").read_text())["config"])
    plan = {p.preset: p for p in cfg.plans()}["toy"]
    for seed, profs in enumerate(seed_profiles(cfg, plan, "native", [0, 1], None)):
        unit = load_unit(run_dir / "units" / f"toy__native__s{seed}.npz")
        for name in ("total", "value", "score"):
            scale = unit["norms_total"].max()
            np.testing.assert_allclose(profs[name].norms, unit[f"norms_{name}"], rtol=0, atol=1e-6 * scale)


def test_resume_recomputes_only_missing_units(run_dir, capsys):
    units = run_dir / "units"
    kept = units / "toy__native__s0.npz"
    stamp = kept.stat().st_mtime_ns
    before = load_unit(units / "toy__nopos__s1.npz")
    (units / "toy__nopos__s1.npz").unlink()
    assert script.main("step0", [*ARGS, "--no-figures", "--out", str(run_dir)]) == 0
    assert kept.stat().st_mtime_ns == stamp  # loaded, not recomputed
    after = load_unit(units / "toy__nopos__s1.npz")
    np.testing.assert_allclose(after["norms_total"], before["norms_total"], rtol=1e-6)  # deterministic
    assert "4 units" in capsys.readouterr().out


def test_resume_refuses_a_different_configuration(run_dir, capsys):
    with pytest.raises(SystemExit) as exc:
        script.main("step0", [*ARGS[:-1], "--seeds", "3", "--no-progress", "--out", str(run_dir)])
    assert exc.value.code == 2 and "different configuration" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--preset", "gpt3"], "presets"),
        (["--method", "jacrev"], "method"),
        (["--probes", "0"], "probes"),
        (["--variants", "rope:abc"], "variants"),
        (["--preset", "gpt2-small", "--length", "2048"], "max_positions"),
        (["--input", "text"], "input"),
    ],
)
def test_bad_arguments_stop_before_work(argv, message, tmp_path, capsys):
    out = tmp_path / "never"
    with pytest.raises(SystemExit) as exc:
        script.main("step0", [*argv, "--out", str(out)])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_script_runs_as_a_file():
    result = subprocess.run([sys.executable, str(ROOT / "sims" / "step0_jacobian.py"), "--help"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "--preset" in result.stdout and "--smoke" in result.stdout


def test_outputs_unchanged_by_the_move(run_dir, golden):
    """The CSVs, table and verdict equal those the pre-move code wrote for the same flags (ARGS)."""
    golden(run_dir, "step0_toy16", ["profiles.csv", "alphas.csv", "metrics.csv", "table.txt", "verdict.txt"],
           rtol=1e-5, ignore_columns=("seconds",))
