"""sims/step0_study.py end to end at a tiny size: files, documented columns, numbers recomputed from the
units, figures from the tables alone, resume, bad arguments."""

import json

import numpy as np
import pytest
from matplotlib.figure import Figure

from lostmid_jax.stats.heldout import heldout_score, split_halves
from lostmid_jax.analysis.theory_variants import VARIANTS, variant_row
from lostmid_jax.experiments import script, step0_study
from lostmid_jax.runs.units import load_unit
from lostmid_jax.runs import load_run

ARGS = ["--smoke", "--no-progress"]


@pytest.fixture(scope="module")
def run_dir(smoke_runs):
    """The shared `lostmid step0-study --smoke` run (tests/conftest.py); read only."""
    return smoke_runs("step0_study")


def test_run_directory_contents(run_dir):
    names = {p.name for p in run_dir.iterdir()}
    assert {"config.json", "columns.csv", "variants.csv", "convergence.csv", "ceiling.csv", "profiles.csv",
            "layers.csv", "noise.csv", "table.txt", "verdict.txt", "convergence_toy.png", "variants_toy.png",
            "layers.png", "noise.png", "units"} <= names
    assert sorted(p.name for p in (run_dir / "units").iterdir()) == sorted(
        [f"toy__s{s}.npz" for s in range(4)] + [f"toy__w{w}__s{s}.npz" for w in (16, 32) for s in range(4)]
        + ["timings.json"])  # the units' wall times, kept out of the unit files (issue 24)
    assert json.loads((run_dir / "config.json").read_text())["status"] == "done"
    verdict = (run_dir / "verdict.txt").read_text()
    assert "(smoke run: too small to test the paper's claims)" in verdict and "ceiling" in verdict


def test_every_column_is_documented_and_positions_are_one_based(run_dir):
    run = load_run(run_dir)
    for stem, table in run.tables.items():
        documented = step0_study.COLUMNS[f"{stem}.csv"]
        assert set(table.columns) <= set(documented), (stem, set(table.columns) - set(documented))
        for column in table.columns:
            if column not in ("preset", "variant", "raw", "within_ceiling", "mlp_gram"):
                assert np.issubdtype(table[column].dtype, np.number), (stem, column)
    assert list(run.tables["profiles"]["j"]) == list(range(1, 17))
    assert sorted(set(run.tables["layers"]["layer"])) == [1, 2]
    assert set(run.tables["variants"]["variant"]) == set(VARIANTS)
    v = run.tables["variants"]
    assert v[v["variant"].str.endswith("positionwise")]["mlp_gram"].astype(bool).all()  # the toy's Gram fits


def test_scores_recomputed_from_the_units(run_dir):
    """variants.csv follows from the saved units through heldout_score on the same split."""
    units = [load_unit(run_dir / "units" / f"toy__s{s}.npz") for s in range(4)]
    profiles = np.stack([u["norms"] for u in units])
    data = {k: np.stack([u[k] for u in units]) for k in ("alphas", "gains_sq", "gains_key", "mlp_gains", "mlp_gram")}
    split = split_halves(4, seed=0)
    table = load_run(run_dir).tables["variants"]
    for variant in ("fitted_a", "random_matrix", "random_matrix_keys", "random_matrix_keys_positionwise"):
        s = heldout_score(profiles, data, lambda p, d, v=variant: variant_row(
            v, 16, profiles=p, alphas=d["alphas"], gains_sq=d["gains_sq"], gains_key=d["gains_key"],
            mlp_gains=d["mlp_gains"], mlp_gram=d["mlp_gram"])[0], split=split, n_boot=200, seed=0)
        row = table[(table["variant"] == variant) & table["raw"]].iloc[0]
        assert row["spearman"] == pytest.approx(s.agreement.spearman, abs=1e-12)
        assert row["wasserstein"] == pytest.approx(s.agreement.wasserstein, abs=1e-12)
        assert row["rms_log"] == pytest.approx(s.rms_log, abs=1e-12)
        assert row["score_seeds"] == 2 and row["fit_seeds"] == 2
    assert 0 < table[table["variant"] == "fitted_a"]["a_fit"].iloc[0] <= 1
    # the units hold what the study reads: positive gains, near-uniform attention
    assert np.all(data["gains_sq"] > 0) and np.all(units[0]["kl"] < 0.05) and np.all(units[0]["max_ratio"] >= 1)
    assert data["gains_key"].shape == (4, 2, 16) and np.all(data["gains_key"] >= 0)
    assert data["mlp_gains"].shape == (4, 2, 16) and np.all(data["mlp_gains"] > 0)


def test_without_mlps_every_model_drops_its_mlp():
    cfg = step0_study.Config(mlp=False)
    assert cfg.model_overrides() == {"mlp": "none"} and cfg.noise_overrides(32)["mlp"] == "none"
    assert step0_study.Config().model_overrides() == {}
    with pytest.raises(ValueError, match="mlp"):
        step0_study.Config(mlp="no")


def test_figures_come_from_the_tables_alone(run_dir):
    run = load_run(run_dir)
    figs = step0_study.figures(run.tables, run.config)
    assert set(figs) == {"convergence_toy", "variants_toy", "layers", "noise"}
    assert all(isinstance(f, Figure) for f in figs.values())


def test_noise_grid_shrinks_as_one_over_root_seeds(run_dir):
    noise = load_run(run_dir).tables["noise"]
    assert sorted(set(noise["width"])) == [16, 32] and np.all(noise["rel_noise"] > 0)
    one = noise[noise["seeds"] == 1].set_index("width")["rel_noise"]
    four = noise[noise["seeds"] == 4].set_index("width")["rel_noise"]
    np.testing.assert_allclose(four, one / 2, rtol=1e-12)  # the n-seed mean's noise is sigma / sqrt(n)


def test_resume_reuses_the_units(run_dir, tmp_path):
    import shutil

    run_dir = shutil.copytree(run_dir, tmp_path / "run")  # the shared run stays as it was
    before = {p.name: p.stat().st_mtime_ns for p in (run_dir / "units").iterdir()}
    assert script.main("step0_study", [*ARGS, "--out", str(run_dir), "--no-figures"]) == 0
    assert {p.name: p.stat().st_mtime_ns for p in (run_dir / "units").iterdir()} == before


def test_units_use_the_models_and_inputs_of_step0():
    import jax
    from flax import nnx

    from lostmid_jax.experiments.step0.config import PresetPlan
    from lostmid_jax.experiments.step0.measure import unit_inputs
    from lostmid_jax.experiments.step0_study.measure import build

    class Cfg:
        param_dtype, input = "float32", "tokens"

    plan = PresetPlan(preset="toy", length=8, method="exact", probes=1, seeds=1, variants=("native",))
    m1, x1, k1 = unit_inputs(Cfg, plan, "native", 3)
    m2, x2, k2 = build("toy", {}, 8, 3, param_dtype="float32", kind="tokens")
    np.testing.assert_array_equal(np.asarray(x1), np.asarray(x2))
    np.testing.assert_array_equal(jax.random.key_data(k1), jax.random.key_data(k2))
    for a, b in zip(jax.tree.leaves(nnx.state(m1)), jax.tree.leaves(nnx.state(m2))):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("flags, match", [(["--seeds", "2"], "seeds"), (["--presets", "nope"], "presets"),
                                          (["--noise-widths", "30"], "noise_widths"),
                                          (["--length", "4"], "length")])
def test_bad_arguments_exit_2(flags, match, capsys, tmp_path):
    with pytest.raises(SystemExit) as err:
        script.main("step0_study", [*flags, "--out", str(tmp_path / "x")])
    assert err.value.code == 2 and match in capsys.readouterr().err
    assert not (tmp_path / "x").exists()



def test_printed_points_lie_inside_their_intervals(run_dir):
    """Every 'Spearman X [lo, hi]' and 'W1 X [lo, hi]' the verdict prints is the point its interval is centred on
    (the bias-corrected one); a row whose plain Spearman lies below its interval (noise lowers it) prints the
    corrected point, and a row written before the _bc columns existed prints the plain one."""
    import re

    from lostmid_jax.experiments.step0_study.report import _scores

    found = re.findall(r"(?:Spearman|W1) (-?\d+\.\d+) \[(-?\d+\.\d+), (-?\d+\.\d+)\]",
                       (run_dir / "verdict.txt").read_text())
    assert found and all(float(lo) <= float(p) <= float(hi) for p, lo, hi in found), found
    row = {"spearman": 0.90, "spearman_bc": 0.95, "spearman_lo": 0.93, "spearman_hi": 0.97, "wasserstein": 0.05,
           "wasserstein_bc": 0.04, "wasserstein_lo": 0.035, "wasserstein_hi": 0.045}
    assert _scores(row).startswith("Spearman 0.950 [0.930, 0.970], W1 0.0400 [0.0350, 0.0450]")
    old = {k: v for k, v in row.items() if not k.endswith("_bc")}
    assert _scores(old).startswith("Spearman 0.900 [0.930, 0.970], W1 0.0500")
