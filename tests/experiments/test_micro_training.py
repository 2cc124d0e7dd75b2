"""sims/micro_training.py (= lostmid train): a tiny end-to-end run in the run format (its config, runs, tables and
figures: test_micro_training_<module>.py)."""

import json

import pytest


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


def test_jsonl_is_strict_json(tiny_run):
    def refuse(token):
        raise ValueError(token)

    for path in tiny_run.glob("*/seed*/*.jsonl"):
        for line in path.read_text().splitlines():
            json.loads(line, parse_constant=refuse)


def test_load_trained_from_the_run(tiny_run):
    from lostmid_jax.train import load_trained

    cfg, model = load_trained(tiny_run, seed=1, intervention="middle_weighted_loss")
    assert cfg.seed == 1 and cfg.intervention == "middle_weighted_loss" and model.cfg == cfg.model


