"""sims/pretrained_vs_init.py (= lostmid compare): the offline smoke, CIs, the run format, every family."""

import json
import math
import pathlib

import pandas as pd
import pytest

from lostmid_jax import cli
from lostmid_jax.experiments import pretrained_vs_init as compare
from lostmid_jax.experiments import script
from lostmid_jax.nn import load_hf
from lostmid_jax.nn.hf import families
from lostmid_jax.probes.settings import CheckpointSource


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
    assert config["config"]["checkpoint"]["weights"] == compare.RANDOM_TINY and config["smoke"] is True
    cfg, _ = load_hf(smoke_run / "checkpoint")  # the checkpoint save_hf wrote reads back
    assert cfg.depth == compare.TINY_GPT2["n_layer"] and cfg.position == "learned"


def test_every_column_is_documented(smoke_run):
    t = _tables(smoke_run)
    for name, frame in t.items():
        assert list(frame.columns) == list(compare.COLUMNS[f"{name}.csv"]), name
    dictionary = pd.read_csv(smoke_run / "columns.csv")
    assert "(undocumented)" not in set(dictionary["meaning"])


def test_figures_redraw_from_the_tables_alone(smoke_run):
    from lostmid_jax.runs import load_run

    run = load_run(smoke_run)
    figs = compare.figures(run.tables, run.config)
    assert set(figs) == {"fig1_profiles"}
    axes = figs["fig1_profiles"].axes
    assert axes[0].get_yscale() == "log" and "$x = j/L$" in axes[0].get_xlabel()
    assert all("_" not in ax.get_xlabel().replace("$", "").split("\\")[0] for ax in axes)


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
    result = compare.run(compare.Config(checkpoint={"weights": str(tmp_path)}, influence={"length": 8, "seeds": 2}), None, progress=False)
    assert set(result.agreements) == {(m, r) for m in compare.MODELS for r in ("theory_measured", "theory_fitted")} \
        | {("pretrained", "init")}
    for ag in result.agreements.values():
        lo, hi = ag.wasserstein_ci
        assert all(map(math.isfinite, (ag.wasserstein, lo, hi))) and lo <= hi
    assert [r["layer"] for r in compare.alpha_records(result.summaries)][:2] == [1, 2]


def test_script_entry_point():
    text = (ROOT / "sims" / "pretrained_vs_init.py").read_text()
    assert 'main("pretrained_vs_init"' in text


def test_registers_as_lostmid_subcommand():
    """`lostmid compare` builds this experiment's config from its flags; --smoke needs no --weights."""
    parser = cli.build_parser("compare")
    args = parser.parse_args(["compare", "--smoke"])
    cfg = script.config_from_args(compare, args, args._flags)
    assert isinstance(cfg, compare.Config) and cfg.influence.length == compare.SMOKE["influence.length"]
    assert cfg.checkpoint == CheckpointSource(weights=compare.RANDOM_TINY, allow_download=False)
