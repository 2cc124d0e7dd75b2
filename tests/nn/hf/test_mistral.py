"""nn/hf/mistral.py: sliding_window <-> the mask, and the export round trip of config.json (no torch)."""

import dataclasses

import pytest

from lostmid_jax.nn.hf import mistral
from lostmid_jax.nn.hf.families import config_from_hf, config_to_hf

RAW = dict(model_type="mistral", num_hidden_layers=1, hidden_size=8, num_attention_heads=2, num_key_value_heads=1,
           intermediate_size=16, vocab_size=11)


def test_sliding_window_sets_the_mask():
    assert config_from_hf(RAW)[1].window == 4096  # transformers' default
    cfg = config_from_hf(dict(RAW, sliding_window=5))[1]
    assert (cfg.mask, cfg.window) == ("sliding_window", 5)
    assert config_from_hf(dict(RAW, sliding_window=None))[1].mask == "causal"
    with pytest.raises(ValueError, match="layer_types"):
        config_from_hf(dict(RAW, layer_types=["sliding_attention"]))


@pytest.mark.parametrize("window", [5, None])
def test_export_reads_back_to_the_same_config(window):
    cfg = config_from_hf(dict(RAW, sliding_window=window))[1]
    family, raw = config_to_hf(cfg, dtype="float32")
    if window is None:  # a Mistral without a window is written as the Llama it is
        assert family == "llama" and "sliding_window" not in raw
    else:
        assert family == "mistral" and raw["sliding_window"] == window
    assert config_from_hf(raw)[1] == cfg


def test_biases_keep_a_config_from_mistral():
    cfg = config_from_hf(dict(RAW, sliding_window=5))[1]
    assert mistral.mismatches(cfg) == []
    assert "qkv_bias=True (needs False)" in mistral.mismatches(dataclasses.replace(cfg, qkv_bias=True))
