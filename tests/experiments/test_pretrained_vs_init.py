"""sims/pretrained_vs_init.py (= lostmid compare): the offline smoke, CIs, the run format, every family."""

import json
import math
import pathlib

import numpy as np
import pandas as pd
import pytest

from lostmid_jax import cli
from lostmid_jax.analysis import influence_profile
from lostmid_jax.experiments import pretrained_vs_init as compare
from lostmid_jax.experiments import script
from lostmid_jax.nn import load_hf
from lostmid_jax.nn.hf import families

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def smoke_run(smoke_runs):
    """The shared `lostmid compare --smoke` run with no --weights (tests/conftest.py), made with every
    outbound connection refused; read only."""
    return smoke_runs("pretrained_vs_init")


def _tables(run):
    from lostmid_jax.runs import read_tables

    return read_tables(run)


def test_smoke_without_weights_writes_a_tiny_checkpoint_and_the_run(smoke_run):
    names = {p.name for p in smoke_run.iterdir()}
    assert {"config.json", "columns.csv", "metrics.csv", "agreement.csv", "profiles.csv", "alphas.csv", "table.txt",
            "verdict.txt", "fig1_profiles.png", "checkpoint"} <= names
    config = json.loads((smoke_run / "config.json").read_text())
    assert config["config"]["weights"] == compare.RANDOM_TINY and config["smoke"] is True
    cfg, _ = load_hf(smoke_run / "checkpoint")  # the checkpoint save_hf wrote reads back
    assert cfg.depth == compare.TINY_GPT2["n_layer"] and cfg.position == "learned"


def test_one_based_positions_and_layers(smoke_run):
    t = _tables(smoke_run)
    L, H = compare.SMOKE["length"], compare.TINY_GPT2["n_layer"]
    for model in compare.MODELS:
        rows = t["profiles"][t["profiles"]["model"] == model]
        assert rows["j"].tolist() == list(range(1, L + 1))
        np.testing.assert_allclose(rows["x"], np.arange(1, L + 1) / L)
        assert t["alphas"][t["alphas"]["model"] == model]["layer"].tolist() == list(range(1, H + 1))
    for name, frame in t.items():
        assert all(pd.api.types.is_numeric_dtype(frame[c]) for c in frame if c not in ("model", "method", "reference"))


def test_every_column_is_documented(smoke_run):
    t = _tables(smoke_run)
    for name, frame in t.items():
        assert list(frame.columns) == list(compare.COLUMNS[f"{name}.csv"]), name
    dictionary = pd.read_csv(smoke_run / "columns.csv")
    assert "(undocumented)" not in set(dictionary["meaning"])


def test_every_comparison_has_a_95_ci(smoke_run):
    ag = _tables(smoke_run)["agreement"]
    assert {(m, r) for m, r in zip(ag["model"], ag["reference"])} == {
        ("pretrained", "theory_measured"), ("pretrained", "theory_fitted"), ("init", "theory_measured"),
        ("init", "theory_fitted"), ("pretrained", "init")}
    for stat in ("spearman", "wasserstein"):  # basic bootstrap intervals: finite, ordered
        assert np.isfinite(ag[[stat, f"{stat}_lo", f"{stat}_hi"]].to_numpy()).all()
        assert (ag[f"{stat}_lo"] <= ag[f"{stat}_hi"]).all()
    assert (ag["rows"] == compare.SMOKE["seeds"]).all()
    verdict = (smoke_run / "verdict.txt").read_text()
    comparisons = [line for line in verdict.splitlines() if "Spearman" in line and " vs " in line]
    assert len(comparisons) == 3 and all(line.count("[") >= 3 for line in comparisons)
    assert "(smoke run: too small to test the paper's claims" in verdict
    table = (smoke_run / "table.txt").read_text()
    assert table.count("Spearman") == 5 and "95% CIs" in table


def test_agreement_is_recomputed_from_the_saved_profiles(smoke_run):
    """The pretrained-vs-theory row of agreement.csv: Spearman of the saved seed-mean profile and theory row."""
    from lostmid_jax.stats import profile_metrics as metrics

    t = _tables(smoke_run)
    rows = t["profiles"][t["profiles"]["model"] == "pretrained"]
    ag = t["agreement"].set_index(["model", "reference"]).loc[("pretrained", "theory_measured")]
    assert ag["spearman"] == pytest.approx(metrics.spearman(rows["p_mean"].to_numpy(), rows["theory_measured"].to_numpy()))


def test_figures_redraw_from_the_tables_alone(smoke_run):
    from lostmid_jax.runs import load_run

    run = load_run(smoke_run)
    figs = compare.figures(run.tables, run.config)
    assert set(figs) == {"fig1_profiles"}
    axes = figs["fig1_profiles"].axes
    assert axes[0].get_yscale() == "log" and "$x = j/L$" in axes[0].get_xlabel()
    assert all("_" not in ax.get_xlabel().replace("$", "").split("\\")[0] for ax in axes)


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    torch.set_num_threads(1)
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=64, n_embd=16, n_layer=2, n_head=2, n_positions=32)
    path = tmp_path_factory.mktemp("gpt2")
    transformers.GPT2LMHeadModel(config).eval().save_pretrained(path)
    return path


@pytest.mark.extended  # a torch GPT-2 through the engine
def test_pretrained_profile_is_the_engine_output(gpt2):
    """The recorded pretrained profile is influence_profile on seed 0's embedded tokens, normalized."""
    cfg = compare.Config(weights=str(gpt2), length=16, seeds=2)
    result = compare.run(cfg, None, progress=False)
    _, model = load_hf(gpt2)
    tokens = np.random.default_rng(0).integers(0, 64, size=16).astype(np.int32)
    norms0 = influence_profile(model, model.embed(tokens), method="exact").norms
    tokens1 = np.random.default_rng(1).integers(0, 64, size=16).astype(np.int32)
    norms1 = influence_profile(model, model.embed(tokens1), method="exact").norms
    rows = [r for r in compare.profile_records(result.summaries) if r["model"] == "pretrained"]
    np.testing.assert_allclose([r["norm_mean"] for r in rows], (norms0 + norms1) / 2, rtol=1e-6)
    p = (norms0 / norms0.sum() + norms1 / norms1.sum()) / 2
    np.testing.assert_allclose([r["p_mean"] for r in rows], p, rtol=1e-6)


# tiny transformers configs of every family load_hf reads (keys the transformers config classes take)
_FAMILY_CONFIGS = {
    "gpt2": ("GPT2Config", "GPT2LMHeadModel", dict(vocab_size=64, n_embd=16, n_layer=2, n_head=2, n_positions=32)),
    "qwen2": ("Qwen2Config", "Qwen2ForCausalLM", dict(vocab_size=64, hidden_size=16, intermediate_size=32,
                                                      num_hidden_layers=2, num_attention_heads=2,
                                                      num_key_value_heads=1, max_position_embeddings=64)),
    "llama": ("LlamaConfig", "LlamaForCausalLM", dict(vocab_size=64, hidden_size=16, intermediate_size=32,
                                                      num_hidden_layers=2, num_attention_heads=2,
                                                      num_key_value_heads=1, max_position_embeddings=64)),
    "mistral": ("MistralConfig", "MistralForCausalLM", dict(vocab_size=64, hidden_size=16, intermediate_size=32,
                                                            num_hidden_layers=2, num_attention_heads=2,
                                                            num_key_value_heads=1, max_position_embeddings=64,
                                                            sliding_window=None)),
    "qwen3": ("Qwen3Config", "Qwen3ForCausalLM", dict(vocab_size=64, hidden_size=16, intermediate_size=32,
                                                      num_hidden_layers=2, num_attention_heads=2, head_dim=8,
                                                      num_key_value_heads=1, max_position_embeddings=64)),
    "bloom": ("BloomConfig", "BloomForCausalLM", dict(vocab_size=64, hidden_size=16, n_layer=2, n_head=2)),
    "mpt": ("MptConfig", "MptForCausalLM", dict(vocab_size=64, d_model=16, n_layers=2, n_heads=2, max_seq_len=64)),
}
_DEFAULT_FAMILIES = ("qwen2", "bloom")  # RoPE + GQA and ALiBi by default (GPT-2 above); the rest under -m slow
_EXTENDED_FAMILIES = ("bloom",)  # ALiBi under -m extended (bloom loads by default: tests/nn/test_hf_bloom_mpt.py)


@pytest.mark.parametrize("family", [pytest.param(f, marks=(pytest.mark.extended if f in _EXTENDED_FAMILIES else ())
                                                 if f in _DEFAULT_FAMILIES else pytest.mark.slow)
                                    for f in _FAMILY_CONFIGS])
def test_every_family_load_hf_reads(family, tmp_path):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    if family not in families.FAMILIES:
        pytest.skip(f"load_hf does not read {family} yet (FAMILIES = {families.FAMILIES})")
    config_cls, model_cls, kwargs = _FAMILY_CONFIGS[family]
    torch.manual_seed(0)
    model = getattr(transformers, model_cls)(getattr(transformers, config_cls)(**kwargs)).eval()
    model.save_pretrained(tmp_path)
    result = compare.run(compare.Config(weights=str(tmp_path), length=8, seeds=2), None, progress=False)
    assert set(result.agreements) == {(m, r) for m in compare.MODELS for r in ("theory_measured", "theory_fitted")} \
        | {("pretrained", "init")}
    for ag in result.agreements.values():
        lo, hi = ag.wasserstein_ci
        assert all(map(math.isfinite, (ag.wasserstein, lo, hi))) and lo <= hi
    assert [r["layer"] for r in compare.alpha_records(result.summaries)][:2] == [1, 2]


def test_uncached_hub_id_exits_2_saying_how_to_fetch(tmp_path, capsys, monkeypatch):
    constants = pytest.importorskip("huggingface_hub.constants")  # the submodule itself: the package loads it lazily
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    with pytest.raises(SystemExit) as err:
        script.main("pretrained_vs_init", ["--weights", "someone/not-cached", "--smoke", "--out", str(tmp_path / "x")])
    text = capsys.readouterr().err
    assert err.value.code == 2 and "hf download someone/not-cached" in text and "--allow-download" in text
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("argv,name", [(["--weights", "/nowhere/ckpt"], "nowhere"), (["--seeds", "1"], "seeds"),
                                       (["--length", "257"], "max_positions")])
def test_bad_arguments_exit_2(argv, name, tmp_path, capsys):
    with pytest.raises(SystemExit) as err:
        script.main("pretrained_vs_init", ["--smoke"] + argv + ["--out", str(tmp_path / "x")])
    assert err.value.code == 2 and name in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_script_entry_point():
    text = (ROOT / "sims" / "pretrained_vs_init.py").read_text()
    assert 'main("pretrained_vs_init"' in text


def test_registers_as_lostmid_subcommand():
    """`lostmid compare` builds this experiment's config from its flags; --smoke needs no --weights."""
    parser = cli.build_parser("compare")
    args = parser.parse_args(["compare", "--smoke"])
    cfg = script.config_from_args(compare, args, args._flags)
    assert isinstance(cfg, compare.Config) and cfg.length == compare.SMOKE["length"]
    assert cfg.weights == compare.RANDOM_TINY and cfg.allow_download is False
