"""sims/step0_jacobian.py end to end at a tiny size: files, numbers, CIs, figures from the CSVs, resume,
bad arguments; the verdict rule on each case."""

import csv
import json
import math
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

from lostmid_jax.stats import profile_metrics as metrics
from lostmid_jax.experiments import script
from lostmid_jax.experiments.step0.measure import load_unit
from lostmid_jax.analysis.theory_fit import theory_row
from lostmid_jax.io import read_csv

ROOT = pathlib.Path(__file__).resolve().parents[2]
ARGS = ["--preset", "toy", "--length", "16", "--seeds", "2", "--variants", "native,nopos", "--heat-length", "8",
        "--n-boot", "200", "--no-progress"]
GOLDEN = ROOT / "tests" / "data" / "golden"


@pytest.fixture(scope="module")
def run_dir(smoke_runs):
    """The shared step0 run (tests/conftest.py SHARED_FLAGS["step0"]: these ARGS); read only."""
    return smoke_runs("step0")


def test_run_directory_contents(run_dir):
    names = {p.name for p in run_dir.iterdir()}
    assert {"config.json", "columns.csv", "profiles.csv", "metrics.csv", "agreement.csv", "nulls.csv", "alphas.csv",
            "attention.csv", "table.txt", "verdict.txt", "overlay_toy.png", "heatmap_toy.png", "units",
            "timings.csv"} <= names
    assert sorted(p.name for p in (run_dir / "units").iterdir()) == [
        "timings.json", "toy__native__s0.npz", "toy__native__s1.npz", "toy__nopos__s0.npz", "toy__nopos__s1.npz"]
    config = json.loads((run_dir / "config.json").read_text())
    assert config["status"] == "done" and config["config"]["length"] == 16 and config["versions"]["jax"]
    assert config["peak_rss_gb"] > 0
    verdict = (run_dir / "verdict.txt").read_text()
    assert "RoPE on vs off" in verdict and "peak-to-trough" in verdict and "docs/theory.md §5" in verdict
    assert any(case in verdict for case in ("REPRODUCED", "REFUTED", "inconclusive"))
    assert "null references (plain Spearman" in verdict
    assert "smoke run" not in verdict


def test_verdict_lines_a_reader_scans(run_dir):
    """One line per claim, at most LINE_WIDTH characters, each printed point inside its printed interval; the
    reasons below the DETAILS line; every claim line's number is in metrics.csv."""
    from lostmid_jax.experiments.step0.claims import LINE_WIDTH
    from lostmid_jax.io import load_run
    from lostmid_jax.runs.verdict_table import DETAILS, claim_rows

    verdict = (run_dir / "verdict.txt").read_text()
    head, details = verdict.split(f"\n{DETAILS}\n")
    rows = claim_rows(verdict)
    assert len(rows) == 10  # 2 Spearman + 3 W1 + 3 shape + on/off + peak-to-trough
    claim_lines = [line for line in head.splitlines() if any(f": {o} (" in line for o in ("REPRODUCED", "REFUTED",
                                                                                           "inconclusive"))]
    assert len(claim_lines) == 10 and all(len(line) <= LINE_WIDTH for line in claim_lines)
    assert any(line.startswith(("  holds -- ", "  fails -- ", "  undecided -- ")) for line in head.splitlines())
    metrics_text = (run_dir / "metrics.csv").read_text()
    for row in rows:
        found = re.match(r"(-?\d+\.\d+) \[(-?\d+\.\d+), (-?\d+\.\d+)\]", row.measured)
        if found is None:  # the shape lines print T/dof, not an interval
            assert row.claim.startswith("shape"), row
            continue
        point, lo, hi = map(float, found.groups())
        assert lo <= point <= hi, row
    m = load_run(run_dir).tables["metrics"].set_index("variant").loc["native"]
    for kind in ("measured", "fitted"):
        line = next(r for r in rows if r.claim.startswith("Spearman") and r.claim.endswith(
            "measured a_l" if kind == "measured" else "log-fit a"))
        assert line.measured == (f"{m[f'spearman_rc_{kind}']:.4f} [{m[f'spearman_rc_{kind}_lo']:.4f}, "
                                 f"{m[f'spearman_rc_{kind}_hi']:.4f}]")
    for kind in ("measured", "fitted", "w1fit"):
        line = next(r for r in rows if r.claim.startswith("W1") and ({"measured": "measured a_l", "fitted": "log-fit",
                                                                       "w1fit": "W1-chosen"}[kind] in r.claim))
        assert line.measured == (f"{m[f'wasserstein_bc_{kind}']:.4f} [{m[f'wasserstein_{kind}_lo']:.4f}, "
                                 f"{m[f'wasserstein_{kind}_hi']:.4f}]")
    assert "theory_w1fit" in (run_dir / "profiles.csv").read_text().splitlines()[0]
    assert "a_w1" in metrics_text.splitlines()[0]
    assert "toy:" in details and "->" in details


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


@pytest.mark.extended  # recompiles step0's measurement vmapped over seeds
@pytest.mark.parametrize("batch", [1, 2])
def test_seed_parallel_profiles_equal_the_units(run_dir, batch):
    """seed_profiles (the route of --devices n and of one accelerator: model and input built from the traced
    seed, ``batch`` seeds vmapped at a time) gives the profiles run_unit saved for each seed (here on one
    device; over 8 devices: tests/parallel/test_parallel_devices.py)."""
    from lostmid_jax.experiments.configs import from_dict
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


def _old_rows(name):
    with open(GOLDEN / f"step0_toy16_{name}") as f:
        return list(csv.DictReader(f))


def _same_cell(old: str, new: str) -> bool:
    """Equal, or numbers equal to a relative 1e-5 (float32 Jacobians); "nan" (the old NA) matches an empty field."""
    if old == new:
        return True
    if old == "nan" and new == "":
        return True
    try:
        return math.isclose(float(old), float(new), rel_tol=1e-5, abs_tol=1e-300)
    except ValueError:
        return False


def test_outputs_unchanged_by_the_move(run_dir, golden):
    """The numbers equal those the pre-move code wrote for the same flags (tests/data/golden/step0_toy16_*).

    profiles.csv is unchanged within float32 rounding (byte for byte only on a CPU like the one that wrote
    the golden files: another CPU, and the default run's XLA with most optimizations off, round results
    differently in their last bits; a standard error, a difference of near-equal numbers, then moves by
    up to 1e-3 of itself but 1e-8 of its mean). The issue-17 format changed the others, not their numbers:
    metrics.csv and alphas.csv gained CI columns (each old column compared cell by cell; the old "nan"
    is now the empty field), alphas.csv's layer is 1-based (old + 1); table.txt and verdict.txt gained
    CIs, cases and a second table block, and every number they printed before is printed again."""
    golden(run_dir, "step0_toy16", ["profiles.csv"], rtol=1e-5, ignore_columns=("p_sem", "norm_sem"),
           added_columns=("theory_w1fit",))
    old, new = _old_rows("profiles.csv"), list(csv.DictReader(open(run_dir / "profiles.csv")))
    for a, b in zip(old, new):  # a standard error's rounding is that of its mean, not of itself
        for sem, mean in (("p_sem", "p_mean"), ("norm_sem", "norm_mean")):
            assert abs(float(a[sem]) - float(b[sem])) <= 1e-5 * abs(float(a[mean])), (sem, a, b)
    for name, shift in (("metrics.csv", {}), ("alphas.csv", {"layer": 1})):
        new = list(csv.DictReader(open(run_dir / name)))
        old = _old_rows(name)
        assert len(new) == len(old)
        for k, (a, b) in enumerate(zip(old, new)):
            for column, value in a.items():
                if column == "seconds":  # a wall time: moved to timings.csv (issue 24), checked below
                    continue
                if column in shift:
                    value = str(int(value) + shift[column])
                assert _same_cell(value, b[column]), f"{name} row {k + 1} column {column}: {value} != {b[column]}"
    timings = list(csv.DictReader(open(run_dir / "timings.csv")))
    assert "seconds" not in new[0] and {(r["preset"], r["variant"]) for r in timings} == {
        (r["preset"], r["variant"]) for r in _old_rows("metrics.csv")}
    # the table now prints the points the verdict judges (rank-corrected Spearman, bias-corrected W1); the plain
    # values it printed before are in the verdict's details, to as many digits or more
    printed = re.findall(r"(?<![\d.])\d+\.\d+(?:e[+-]\d+)?", (run_dir / "table.txt").read_text() +
                         (run_dir / "verdict.txt").read_text())
    old_table = (GOLDEN / "step0_toy16_table.txt").read_text().splitlines()[3:]  # the rows, header skipped
    for line in old_table:
        for number in re.findall(r"(?<![\d.])\d+\.\d+(?:e[+-]\d+)?", line):
            digits = len(number.split(".")[1].split("e")[0])
            assert any(p == number or ("e" not in p and len(p.split(".")[1]) >= digits and
                                       f"{float(p):.{digits}f}" == number) for p in printed), f"lost {number}"
    verdict = (run_dir / "verdict.txt").read_text()
    old = (GOLDEN / "step0_toy16_verdict.txt").read_text()
    old = re.sub(r"(REPRODUCED|NOT reproduced) \(paper.*", "", old)  # the judgement and the paper's numbers
    measured = re.findall(r"(\d+\.\d+)(?=:| over|\))", old)
    assert measured == ["0.7706", "0.304", "0.7706", "0.0836", "0.0035", "1.0000", "1.32", "0.29", "1.51"]
    now = set(re.findall(r"(\d+\.\d+)(?= \[| over|\)|,|;)", verdict))  # the plain values: "plain X," in the details
    assert set(measured) <= now, f"verdict.txt lost {set(measured) - now}"


def test_columns_dictionary_covers_every_column(run_dir):
    from lostmid_jax.experiments.step0 import COLUMNS
    from lostmid_jax.io import load_run

    run = load_run(run_dir)
    assert set(run.tables) == {"profiles", "metrics", "agreement", "nulls", "alphas", "attention", "timings"}
    for stem, frame in run.tables.items():
        described = COLUMNS[f"{stem}.csv"]
        assert set(frame.columns) == set(described), stem  # every column, and no stale entry
        for column in frame.columns:
            meaning, unit = described[column]
            assert meaning and isinstance(unit, str)
            if column not in ("preset", "variant", "pathway", "reference", "method"):
                assert frame[column].dtype.kind in "biuf", f"{stem}.{column} is not numeric"
    assert list(run.tables["alphas"]["layer"]) == [1, 2, 1, 2]  # 1-based layers
    prof = run.tables["profiles"]
    assert prof["j"].min() == 1 and prof["j"].max() == 16 and np.allclose(prof["x"], prof["j"] / 16)
    att = run.tables["attention"]
    assert att["layer"].min() == 1 and att["head"].min() == 1 and (att["j"] <= att["i"]).all()


def test_every_metric_has_its_ci(run_dir):
    """Every metric of metrics.csv has _lo and _hi beside it, lo <= hi; agreement.csv is agreement()
    of the saved units (raw and binned), and the verdict prints the same CIs."""
    from lostmid_jax.analysis import agreement
    from lostmid_jax.io import load_run

    run = load_run(run_dir)
    m = run.tables["metrics"].set_index("variant")
    for column in ("a_fit", "spearman_measured", "wasserstein_measured", "spearman_fitted", "wasserstein_fitted",
                   "log10_peak_to_trough", "theory_log10_peak_to_trough", "a_mean"):
        lo, hi = m.loc["native", f"{column}_lo"], m.loc["native", f"{column}_hi"]
        assert np.isfinite(lo) and lo <= hi, column
    assert 0 < m.loc["native", "ceiling"] <= 1 and np.isnan(m.loc["native", "ceiling_lo"])  # no jackknife at S = 2
    assert np.isfinite(m.loc["nopos", "spearman_vs_native_lo"]) and np.isnan(m.loc["native", "spearman_vs_native_lo"])
    ag = run.tables["agreement"]
    units = {v: np.stack([load_unit(run_dir / "units" / f"toy__{v}__s{s}.npz")["norms_total"] for s in (0, 1)])
             for v in ("native", "nopos")}
    prof = run.tables["profiles"]
    theory = prof[(prof["variant"] == "native") & (prof["pathway"] == "total")]["theory_measured"].to_numpy()
    for bins in (16,):
        want = agreement(units["native"], theory, bins=bins, n_boot=200)
        row = ag[(ag["variant"] == "native") & (ag["pathway"] == "total") & (ag["reference"] == "theory_measured")
                 & (ag["bins"] == bins)].iloc[0]
        assert row["spearman"] == pytest.approx(want.spearman, rel=1e-6)
        assert (row["spearman_lo"], row["spearman_hi"]) == pytest.approx(want.spearman_ci, rel=1e-6)
        assert row["wasserstein_hi"] == pytest.approx(want.wasserstein_ci[1], rel=1e-6)
    paired = agreement(units["native"], units["nopos"], n_boot=200)
    row = ag[(ag["variant"] == "nopos") & (ag["reference"] == "native") & (ag["bins"] == 16)].iloc[0]
    assert row["spearman"] == pytest.approx(paired.spearman, rel=1e-6)
    verdict = run.verdict
    lo, hi = m.loc["native", "spearman_rc_measured_lo"], m.loc["native", "spearman_rc_measured_hi"]
    assert f"[{lo:.4f}, {hi:.4f}]" in verdict


@pytest.mark.extended  # redraws every figure (lostmid plot redraws step0's by default: tests/runs/test_plot.py)
def test_figures_are_drawn_from_the_csvs_alone(run_dir):
    import pandas as pd
    from matplotlib.figure import Figure

    from lostmid_jax.experiments import step0
    from lostmid_jax.experiments.configs import from_dict

    tables = {p.stem: pd.read_csv(p) for p in run_dir.glob("*.csv") if p.name != "columns.csv"}
    cfg = from_dict(step0.Config, json.loads((run_dir / "config.json").read_text())["config"])
    figs = step0.figures(tables, cfg)
    assert set(figs) == {"overlay_toy", "heatmap_toy"} and all(isinstance(f, Figure) for f in figs.values())
    # the drawn curve is the saved profile
    overlay = figs["overlay_toy"].axes[0]
    p = tables["profiles"].query("variant == 'native' and pathway == 'total'")["p_mean"].to_numpy()
    np.testing.assert_allclose(overlay.get_lines()[0].get_ydata(), 16 * p[:-1])
    heat = figs["heatmap_toy"].axes[0].images[0].get_array()
    att = tables["attention"].query("layer == 1 and head == 1")
    # the heat map shows i * A_ij (uniform causal attention is 1 everywhere)
    assert heat.shape == (8, 8) and heat[7, 0] == pytest.approx(8 * att.query("i == 8 and j == 1")["prob"].item())


def test_judge_names_each_case():
    from lostmid_jax.experiments.step0.claims import judge

    assert judge("spearman", 0.995, (0.991, 0.999), rows=8).outcome == "REPRODUCED"
    assert judge("spearman", 0.97, (0.95, 0.995), rows=8).outcome == "inconclusive"
    assert judge("spearman", 0.30, (0.25, 0.35), rows=8).outcome == "REFUTED"
    assert judge("wasserstein", 0.015, (0.01, 0.019), rows=8).outcome == "REPRODUCED"
    assert judge("wasserstein", 0.021, (0.0201, 0.024), rows=8).outcome == "REFUTED"  # 0.02 as stated
    assert judge("wasserstein", 0.03, (0.01, 0.04), rows=8).outcome == "inconclusive"
    assert judge("wasserstein", 0.08, (0.06, 0.1), rows=8).outcome == "REFUTED"
    clipped = judge("spearman", 0.978, (0.9659, 1.0), rows=4)  # gpt2-small with 4 seeds
    assert clipped.outcome == "inconclusive" and "power calculation" in clipped.details
    assert judge("onoff", 0.9, (math.nan, math.nan), rows=1).reason == "1 seed(s) < 4"
    assert judge("peak_to_trough", 2.1, (1.9, 2.3), rows=8).outcome == "REPRODUCED"
    assert judge("peak_to_trough", 1.4, (1.2, 1.6), rows=8).outcome == "inconclusive"
    assert judge("peak_to_trough", 1.0, (0.9, 1.1), rows=8).outcome == "REFUTED"
    assert judge("spearman", math.nan, (math.nan, math.nan), rows=8).reason == "not measured"
    ramp = judge("spearman", 0.998, (0.997, 0.9995), rows=8, nulls={"ramp L..1": 0.996})
    assert "cannot tell the theories apart" in ramp.details and "a null meets it too" in ramp.reason


def test_gross_misfits_are_never_reproduced_on_synthetic_ensembles():
    """Ensembles whose true Spearman against the reference is about 0.5, and ensembles with a true W1 of
    twice the claim at 4 seeds: never REPRODUCED by the estimators the verdict judges, the Spearman ones
    REFUTED."""
    from lostmid_jax.experiments.step0.claims import judge
    from lostmid_jax.stats.agreement import agreement

    rng = np.random.default_rng(27)
    length = 48
    x = np.arange(1, length + 1) / length
    truth = 1.0 / (x + 0.05)
    shuffled = truth.copy()
    shuffled[8:40] = rng.permutation(shuffled[8:40])  # rank agreement about 0.5, same values
    outcomes = []
    for _ in range(25):
        rows = truth * np.exp(0.2 * rng.standard_normal((8, length)))
        ag = agreement(rows, shuffled, n_boot=300, seed=0)
        outcomes.append(judge("spearman", ag.spearman_rc, ag.spearman_rc_ci, rows=8).outcome)
    assert set(outcomes) == {"REFUTED"}, outcomes
    far = truth * np.exp(-1.2 * x)  # W1 against truth about 0.05
    w1_outcomes = []
    for _ in range(25):
        rows = truth * np.exp(0.3 * rng.standard_normal((4, length)))
        ag = agreement(rows, far, n_boot=300, seed=0)
        w1_outcomes.append(judge("wasserstein", ag.wasserstein_bc, ag.wasserstein_ci, rows=4).outcome)
    assert "REPRODUCED" not in w1_outcomes


def test_smoke_verdict_says_it_cannot_test_the_claims():
    from lostmid_jax.experiments.step0 import SMOKE, Config
    from lostmid_jax.experiments.step0.claims import SMOKE_NOTE, verdict

    assert Config(**SMOKE).smoke and SMOKE_NOTE == "(smoke run: too small to test the paper's claims)"
    assert verdict({}, smoke=True)[0] == SMOKE_NOTE and SMOKE_NOTE not in verdict({})


def test_default_and_full_presets():
    from lostmid_jax.experiments.step0 import Config, expected_time
    from lostmid_jax.nn import PRESETS

    plans = {p.preset: p for p in Config().plans()}
    assert list(plans) == ["toy-deep", "gpt2-small"]
    assert plans["toy-deep"].method == "exact" and plans["toy-deep"].seeds >= 8
    assert plans["gpt2-small"].seeds >= 4
    full = Config(full=True)
    assert full.preset_names() == ("toy-deep", "gpt2-small", "qwen2-0.5b")
    assert re.search(r"qwen2-0.5b: 4 units .* ~\d+ min", expected_time(full))
    for name in PRESETS:  # every preset is selectable and gets a plan
        plan = Config(presets=(name,)).plans()[0]
        assert plan.length >= 2 and plan.seeds >= 1 and plan.variants
    with pytest.raises(ValueError, match="full"):
        Config(full="yes")
