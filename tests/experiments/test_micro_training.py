"""sims/micro_training.py (= lostmid train): validation, a tiny end-to-end run in the run format, resume."""

import json
import shutil

import numpy as np
import pandas as pd
import pytest

from lostmid_jax.experiments import micro_training, script

SMOKE = ["--smoke", "--no-progress"]  # one layer of width 16, 5 steps, seeds 0 and 1, task mixed, middle_weighted_loss


@pytest.mark.parametrize("argv,name", [(["--steps", "0"], "steps"), (["--seeds", "1,1"], "seeds"),
                                       (["--interventions", "magic"], "interventions"), (["--task", "qa"], "task"),
                                       (["--attn-impl", "gpu"], "attn_impl")])
def test_bad_arguments_exit_2_naming_the_argument(argv, name, capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        script.main("micro_training", argv + ["--out", str(tmp_path / "x")])
    assert exc.value.code == 2 and name in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


@pytest.fixture(scope="module")
def tiny_run(smoke_runs):
    """The shared `lostmid train --smoke` run (tests/conftest.py); read only."""
    return smoke_runs("micro_training")


def test_run_directory(tiny_run):
    for name in ("config.json", "columns.csv", "snapshots.csv", "profiles.csv", "strength.csv", "accuracy.csv",
                 "documents.csv", "verdict.txt", "fig1_valley.png", "fig2_pathways.png", "fig3_profiles.png",
                 "fig4_doc_u.png", "fig5_accuracy.png", "none/seed0/metrics.jsonl", "middle_weighted_loss/seed1/ckpt"):
        assert (tiny_run / name).exists(), name
    config = json.loads((tiny_run / "config.json").read_text())
    assert config["config"]["seeds"] == [0, 1] and config["smoke"] is True
    assert config["config"]["base"]["task"] == "mixed"  # both accuracy.csv and documents.csv
    verdict = (tiny_run / "verdict.txt").read_text()
    assert "valley depth" in verdict and "middle_weighted_loss vs baseline" in verdict and "docs/theory.md §" in verdict
    assert "(smoke run: too small to test the paper's claims)" in verdict and "+-" not in verdict


def test_tables_are_typed_one_based_and_documented(tiny_run):
    from lostmid_jax.runs import load_run

    run = load_run(tiny_run)
    cfg = run.config.base
    for name, frame in run.tables.items():
        assert list(frame.columns) == list(micro_training.COLUMNS[f"{name}.csv"]), name
        for column in frame.columns:
            if column != "intervention":
                assert pd.api.types.is_numeric_dtype(frame[column]), (name, column)
    prof = run.tables["profiles"]
    one = prof[(prof["intervention"] == "none") & (prof["seed"] == 0) & (prof["step"] == 0)]
    assert one["j"].tolist() == list(range(1, cfg.lm_length + 1))
    np.testing.assert_allclose(one["x"], np.arange(1, cfg.lm_length + 1) / cfg.lm_length)
    assert sorted(run.tables["strength"]["layer"].unique()) == list(range(1, cfg.model.depth + 1))
    assert sorted(run.tables["accuracy"]["bin"].unique()) == list(range(1, cfg.needle_bins + 1))
    docs = cfg.lm_length // cfg.doc_length
    assert sorted(run.tables["documents"]["document"].unique()) == list(range(1, docs + 1))
    assert "(undocumented)" not in set(pd.read_csv(tiny_run / "columns.csv")["meaning"])


def test_jsonl_is_strict_json(tiny_run):
    def refuse(token):
        raise ValueError(token)

    for path in tiny_run.glob("*/seed*/*.jsonl"):
        for line in path.read_text().splitlines():
            json.loads(line, parse_constant=refuse)


def test_figures_redraw_from_the_tables_in_the_shared_style(tiny_run):
    from lostmid_jax.runs import load_run

    run = load_run(tiny_run)
    figs = micro_training.figures(run.tables, run.config)
    assert set(figs) == {"fig1_valley", "fig2_pathways", "fig3_profiles", "fig4_doc_u", "fig5_accuracy"}
    for fig in figs.values():
        for ax in fig.axes:
            labels = [ax.get_xlabel(), ax.get_ylabel()] + [t.get_text() for t in ax.get_legend().get_texts()]
            assert not [s for s in labels if s in ("middle_weighted_loss", "middle_loss", "oversample_middle", "total_valley", "none")]
    ax = figs["fig1_valley"].axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == [f"$\\mathdefault{{{s}}}$" for s in (0, 1, 2, 5)] or \
        [round(t) for t in ax.get_xticks()] == [0, 1, 2, 5]


def test_load_trained_from_the_run(tiny_run):
    from lostmid_jax.train import load_trained

    cfg, model = load_trained(tiny_run, seed=1, intervention="middle_weighted_loss")
    assert cfg.seed == 1 and cfg.intervention == "middle_weighted_loss" and model.cfg == cfg.model


def test_a_run_written_before_the_rename_reads_back(tiny_run, tmp_path):
    """An old run directory (intervention middle_loss in config.json, train_config.json, the CSV rows and the
    directory name) loads with the new name; the old keyword still works, with a DeprecationWarning."""
    from lostmid_jax.runs import load_run
    from lostmid_jax.train import load_trained

    old = tmp_path / "old"
    shutil.copytree(tiny_run, old)
    (old / "middle_weighted_loss").rename(old / "middle_loss")
    for path in [old / "config.json", *old.glob("middle_loss/seed*/train_config.json"), *old.glob("*.csv")]:
        path.write_text(path.read_text().replace("middle_weighted_loss", "middle_loss"))
    with pytest.warns(DeprecationWarning, match="middle_weighted_loss"):
        run = load_run(old)
    assert run.config.interventions == ("middle_weighted_loss",)
    figs = micro_training.figures(run.tables, run.config)
    legend = [t.get_text() for t in figs["fig1_valley"].axes[0].get_legend().get_texts()]
    assert "middle-weighted loss" in legend
    with pytest.warns(DeprecationWarning):
        cfg, _ = load_trained(old, seed=1, intervention="middle_loss")
    assert cfg.intervention == "middle_weighted_loss"
    with pytest.warns(DeprecationWarning):
        cfg, _ = load_trained(old, seed=0, intervention="middle_weighted_loss")


@pytest.mark.slow
def test_rerun_resumes_without_retraining(tiny_run, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(tiny_run, out)
    before = (out / "snapshots.csv").read_text()
    for name in ("snapshots.csv", "profiles.csv"):
        (out / name).unlink()
    assert script.main("micro_training", SMOKE + ["--out", str(out), "--no-figures"]) == 0  # restored, not retrained
    assert (out / "snapshots.csv").read_text() == before
