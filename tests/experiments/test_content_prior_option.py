"""--content-prior of `lostmid step0` and `lostmid compare`: each model is compared with the Content prior
measured from it (issue 19), the prior is recorded, and every column written is documented."""

import json

import numpy as np
import pandas as pd
import pytest

from lostmid_jax import theory
from lostmid_jax.analysis.theory_fit import theory_row
from lostmid_jax.experiments import pretrained_vs_init as compare
from lostmid_jax.experiments import script
from lostmid_jax.experiments import step0
from lostmid_jax.runs import load_run

L = 16
STEP0_ARGS = ["--preset", "toy", "--length", str(L), "--seeds", "2", "--variants", "native", "--heat-length", "16",
              "--n-boot", "20", "--no-split", "--no-progress", "--no-figures", "--content-prior"]


@pytest.fixture(scope="module")
def step0_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("step0_content") / "run"
    assert script.main("step0", [*STEP0_ARGS, "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def compare_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("compare_content") / "run"
    assert script.main("pretrained_vs_init", ["--smoke", "--content-prior", "--no-progress", "--no-figures",
                                              "--out", str(out)]) == 0
    return out


def _prior_from_csv(scores: pd.DataFrame) -> theory.Content:
    """theory.Content over the causal mask rebuilt from content_scores.csv rows (one model)."""
    scores = scores.sort_values(["layer", "head"])
    heads = int(scores["head"].max())
    diag = scores["self_bonus"].to_numpy().reshape(-1, heads)
    base = scores["offdiag_score"].to_numpy().reshape(-1, heads)
    return theory.Content(mask=theory.Causal(), heads=heads, diag=diag.tolist(), base=base.tolist())


def _check_rows(saved: np.ndarray, alphas: np.ndarray, prior: theory.Content):
    """The saved theory row is the Content prior's (to float64 rounding) and differs from the plain causal one."""
    content = theory_row(L, alphas, prior=prior)
    causal = theory_row(L, alphas)
    np.testing.assert_allclose(saved, content, rtol=1e-10, atol=0)
    assert np.max(np.abs(saved - causal) / causal) > 1e-5  # the measured self bonus moves the row


def test_flag_defaults_off_and_is_validated():
    assert step0.Config().content_prior is False
    assert step0.Config(models={"presets": ("toy",)}, content_prior=True).content_prior is True
    with pytest.raises(ValueError, match="content_prior"):
        step0.Config(models={"presets": ("toy",)}, content_prior="yes")
    assert compare.Config(checkpoint={"weights": compare.RANDOM_TINY}).content_prior is False
    with pytest.raises(ValueError, match="content_prior"):
        compare.Config(checkpoint={"weights": compare.RANDOM_TINY}, content_prior="maybe")


def test_step0_uses_and_records_the_measured_content_prior(step0_run):
    run = load_run(step0_run)
    scores = run.tables["content_scores"]
    cfg = step0.model_config("toy", "native")
    assert len(scores) == cfg.depth * cfg.heads and (scores["measured_length"] == L).all()
    assert sorted(set(scores["layer"])) == list(range(1, cfg.depth + 1))
    assert sorted(set(scores["head"])) == list(range(1, cfg.heads + 1))
    assert np.all(np.isfinite(scores[["self_bonus", "offdiag_score"]].to_numpy()))
    prior = _prior_from_csv(scores)
    info = json.loads((step0_run / "config.json").read_text())
    assert info["config"]["content_prior"] is True
    assert info["priors"] == {"toy/native": prior.label} and prior.label.startswith("content: causal")
    assert f"toy/native: {prior.label}" in run.verdict
    prof = run.tables["profiles"].query("pathway == 'total'").sort_values("j")
    alphas = run.tables["alphas"].sort_values("layer")["a_mean"].to_numpy()
    _check_rows(prof["theory_measured"].to_numpy(), alphas, prior)


def test_step0_scores_are_the_seed0_models(step0_run):
    """The recorded scores equal prior_for(content=True) on an independently built seed-0 toy model."""
    import jax
    from flax import nnx

    from lostmid_jax.analysis import prior_for
    from lostmid_jax.nn import Decoder

    cfg = step0.model_config("toy", "native")
    model = Decoder(cfg, rngs=nnx.Rngs(jax.random.key(0)))
    want = prior_for(cfg, L, model=model, content=True)
    got = _prior_from_csv(load_run(step0_run).tables["content_scores"])
    np.testing.assert_allclose(np.asarray(got.diag), np.asarray(want.diag), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(np.asarray(got.base), np.asarray(want.base), rtol=1e-12, atol=1e-15)


def test_step0_every_column_is_documented(step0_run):
    run = load_run(step0_run)
    assert "content_scores" in run.tables
    for stem, frame in run.tables.items():
        assert set(frame.columns) == set(step0.COLUMNS[f"{stem}.csv"]), stem
        for column in frame.columns:
            if column not in ("preset", "variant", "pathway", "reference", "method"):
                assert frame[column].dtype.kind in "biuf", f"{stem}.{column} is not numeric"
    assert "(undocumented)" not in set(pd.read_csv(step0_run / "columns.csv")["meaning"])


@pytest.mark.extended  # a second experiment run (compare --content-prior); step0 --content-prior runs by default
def test_compare_uses_and_records_the_init_models_content_prior(compare_run):
    run = load_run(compare_run)
    scores = run.tables["content_scores"]
    assert set(scores["model"]) == {"init"} and (scores["measured_length"] == L).all()
    assert len(scores) == compare.TINY_GPT2["n_layer"] * compare.TINY_GPT2["n_head"]
    prior = _prior_from_csv(scores)
    info = json.loads((compare_run / "config.json").read_text())
    assert info["config"]["content_prior"] is True and info["prior"] == prior.label
    assert prior.label in run.verdict and "--content-prior" in run.verdict
    alphas = run.tables["alphas"]
    for model in compare.MODELS:  # both models are compared with the prior measured on the seed-0 init
        prof = run.tables["profiles"].query("model == @model").sort_values("j")
        a_l = alphas.query("model == @model").sort_values("layer")["a_mean"].to_numpy()
        _check_rows(prof["theory_measured"].to_numpy(), a_l, prior)


@pytest.mark.extended  # shares that compare run
def test_compare_every_column_is_documented(compare_run):
    run = load_run(compare_run)
    for stem, frame in run.tables.items():
        assert list(frame.columns) == list(compare.COLUMNS[f"{stem}.csv"]), stem
    assert "(undocumented)" not in set(pd.read_csv(compare_run / "columns.csv")["meaning"])
