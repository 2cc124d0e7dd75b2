"""step0's units: seed-parallel profiles equal the units, resume recomputes only what is missing, timings per unit."""

import json

import numpy as np
import pytest

from lostmid_jax.experiments import script
from lostmid_jax.runs.units import load_unit
from lostmid_jax.runs import read_csv
from test_step0 import ARGS, run_dir  # noqa: F401  (fixtures and helpers of the experiment's test files)


@pytest.mark.extended  # recompiles step0's measurement vmapped over seeds
@pytest.mark.parametrize("batch", [1, 2])
def test_seed_parallel_profiles_equal_the_units(run_dir, batch):
    """seed_profiles (the route of --devices n and of one accelerator: model and input built from the traced
    seed, ``batch`` seeds vmapped at a time) gives the profiles run_unit saved for each seed (here on one
    device; over 8 devices: tests/parallel/test_parallel_devices.py)."""
    from lostmid_jax.runs.config import from_dict
    from lostmid_jax.experiments.step0.config import Config
    from lostmid_jax.experiments.step0.measure import seed_profiles, seeds_together

    assert not seeds_together(4, None)  # on CPU each seed runs alone (the golden files' route)
    cfg = from_dict(Config, json.loads((run_dir / "config.json").read_text())["config"])
    plan = {p.preset: p for p in cfg.plans()}["toy"]
    for seed, profs in enumerate(seed_profiles(cfg, plan, "native", [0, 1], None, batch=batch)):
        unit = load_unit(run_dir / "units" / f"toy__native__s{seed}.npz")
        for name in ("total", "value", "score"):
            scale = unit["norms_total"].max()
            np.testing.assert_allclose(profs[name].norms, unit[f"norms_{name}"], rtol=0, atol=1e-6 * scale)


def test_resume_recomputes_only_missing_units(run_dir, tmp_path, capsys):
    import shutil

    run_dir = shutil.copytree(run_dir, tmp_path / "run")  # the shared run stays as it was
    units = run_dir / "units"
    kept = units / "toy__native__s0.npz"
    stamp = kept.stat().st_mtime_ns
    before = load_unit(units / "toy__nopos__s1.npz")
    (units / "toy__nopos__s1.npz").unlink()
    assert script.main("step0", [*ARGS, "--no-figures", "--profile", "--out", str(run_dir)]) == 0
    assert kept.stat().st_mtime_ns == stamp  # loaded, not recomputed
    after = load_unit(units / "toy__nopos__s1.npz")
    np.testing.assert_allclose(after["norms_total"], before["norms_total"], rtol=1e-6)  # deterministic
    out = capsys.readouterr().out
    assert "4 units" in out
    profile = out[out.index("time per (preset, variant)"):].splitlines()  # --profile: the split, then the phases
    assert profile[1].split()[:4] == ["preset/variant", "seeds", "wall", "s"] and profile[2].startswith("  toy/native")
    assert profile[1].rstrip().endswith("unit host  host share") and profile[2].rstrip().endswith("%")
    assert any(line.split()[0] == "figures" for line in profile) and "phase_seconds" in json.loads(
        (run_dir / "config.json").read_text())


def test_timings_split_each_unit_and_nothing_recompiles_per_seed(run_dir):
    """timings.json splits each unit's wall time into compile + device + host seconds; the second seed of
    each variant compiles no program (issue 37: no shape recompiles per seed; the 4-seed version with
    several chunks: tests/experiments/test_step0_compiles.py); timings.csv sums them per variant."""
    timings = json.loads((run_dir / "units" / "timings.json").read_text())
    for stem, t in timings.items():
        assert t["compile_seconds"] + t["device_seconds"] + t["host_seconds"] == pytest.approx(t["seconds"])
        assert min(t["compile_seconds"], t["device_seconds"], t["host_seconds"]) >= 0
    assert [timings[f"toy__{v}__s1"]["compiles"] for v in ("native", "nopos")] == [0, 0]
    rows = {r["variant"]: r for r in read_csv(run_dir / "timings.csv")}
    for variant, row in rows.items():
        units = [timings[f"toy__{variant}__s{s}"] for s in (0, 1)]
        assert float(row["compiles"]) == sum(u["compiles"] for u in units)
        assert float(row["device_seconds"]) == pytest.approx(sum(u["device_seconds"] for u in units))
        assert float(row["summary_seconds"]) > 0


def test_resume_refuses_a_different_configuration(run_dir, tmp_path, capsys):
    import shutil

    run_dir = shutil.copytree(run_dir, tmp_path / "run")
    with pytest.raises(SystemExit) as exc:
        script.main("step0", [*ARGS[:-1], "--seeds", "3", "--no-progress", "--out", str(run_dir)])
    assert exc.value.code == 2 and "different configuration" in capsys.readouterr().err
