"""nn/hf/llama.py: Llama's keys (attention_bias, mlp_bias), the Llama-style defaults, the export choice."""

import dataclasses

import pytest

from lostmid_jax.nn.hf import llama
from lostmid_jax.nn.hf.families import config_from_hf, config_to_hf, family_of

RAW = dict(model_type="llama", num_hidden_layers=2, hidden_size=8, num_attention_heads=2, num_key_value_heads=1,
           intermediate_size=16, vocab_size=11)


def test_llama_keys_and_defaults():
    cfg = config_from_hf(RAW)[1]
    assert (cfg.max_positions, cfg.norm_eps, cfg.tie_embeddings, cfg.qkv_bias, cfg.mlp_bias) == \
        (2048, 1e-6, False, False, False)
    biased = config_from_hf(dict(RAW, attention_bias=True, mlp_bias=True))[1]
    assert biased.qkv_bias and biased.out_bias and biased.mlp_bias


def test_export_reads_back_as_llama():
    cfg = config_from_hf(dict(RAW, attention_bias=True))[1]
    family, raw = config_to_hf(cfg, dtype="float32")
    assert family == family_of(cfg) == "llama" and config_from_hf(raw)[1] == cfg


@pytest.mark.parametrize("change,needs", [(dict(qkv_bias=True, out_bias=False), "attention_bias sets both"),
                                          (dict(mask="sliding_window", window=3), "mask='sliding_window'"),
                                          (dict(qk_norm=True), "qk_norm=True (needs False)"),
                                          (dict(width=9, head_dim=4), "not divisible by heads")])
def test_mismatches_name_what_keeps_a_config_from_llama(change, needs):
    cfg = config_from_hf(RAW)[1]
    assert any(needs in m for m in llama.mismatches(dataclasses.replace(cfg, **change)))
