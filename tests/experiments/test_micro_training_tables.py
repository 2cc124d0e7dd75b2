"""Micro-training's tables: typed, one-based, documented; a run written before the intervention rename reads back."""

import shutil

import numpy as np
import pandas as pd
import pytest

from lostmid_jax.experiments import micro_training
from test_micro_training import tiny_run  # noqa: F401  (fixtures and helpers of the experiment's test files)


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
