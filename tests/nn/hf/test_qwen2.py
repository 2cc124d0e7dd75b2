"""nn/hf/qwen2.py: config.json <-> DecoderConfig (no torch): the keys read, sliding windows refused, the round trip."""

import dataclasses

import pytest

from lostmid_jax.nn.hf import qwen2
from lostmid_jax.nn.hf.families import config_from_hf, config_to_hf

RAW = dict(model_type="qwen2", num_hidden_layers=2, hidden_size=8, num_attention_heads=2, num_key_value_heads=1,
           intermediate_size=16, vocab_size=11)


def test_keys_read_and_defaults():
    cfg = config_from_hf(RAW)[1]
    assert (cfg.resolved_kv_heads, cfg.resolved_mlp_width, cfg.max_positions, cfg.norm_eps) == (1, 16, 32768, 1e-6)
    assert cfg.qkv_bias and not cfg.out_bias and cfg.position == "rope" and cfg.rope_theta == 10000.0
    # a sliding window that is off (Qwen2's files carry one) changes nothing
    assert config_from_hf(dict(RAW, use_sliding_window=False, sliding_window=4096, max_window_layers=21))[1] == cfg


def test_refused_variants():
    with pytest.raises(ValueError, match="use_sliding_window=true"):
        config_from_hf(dict(RAW, use_sliding_window=True))
    with pytest.raises(ValueError, match="hidden_act='gelu'"):
        config_from_hf(dict(RAW, hidden_act="gelu"))


def test_export_reads_back_and_mismatches_name_the_field():
    cfg = config_from_hf(dict(RAW, rope_parameters=dict(rope_type="linear", factor=2.0, rope_theta=100.0)))[1]
    family, raw = config_to_hf(cfg, dtype="float32")
    assert family == "qwen2" and config_from_hf(raw)[1] == cfg
    assert qwen2.mismatches(cfg) == []
    assert "out_bias=True (needs False)" in qwen2.mismatches(dataclasses.replace(cfg, out_bias=True))
