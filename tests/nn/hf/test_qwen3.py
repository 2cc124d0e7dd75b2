"""nn/hf/qwen3.py: Qwen3's own keys (head_dim 128 by default, q/k norms, layer_types) and the export round trip."""

import dataclasses

import pytest

from lostmid_jax.nn.hf import qwen3
from lostmid_jax.nn.hf.families import config_from_hf, config_to_hf

RAW = dict(model_type="qwen3", num_hidden_layers=2, hidden_size=8, num_attention_heads=2, num_key_value_heads=1,
           intermediate_size=16, vocab_size=11)


def test_qwen3_reads_its_own_keys():
    cfg = config_from_hf(RAW)[1]
    assert cfg.qk_norm and cfg.resolved_head_dim == 128 and not cfg.qkv_bias
    assert config_from_hf(dict(RAW, head_dim=4, attention_bias=True))[1].qkv_bias
    full = dict(RAW, layer_types=["full_attention"] * 2)
    assert config_from_hf(full)[1] == cfg
    with pytest.raises(ValueError, match="layer_types"):
        config_from_hf(dict(RAW, layer_types=["full_attention", "sliding_attention"]))


def test_export_reads_back_to_the_same_config():
    cfg = config_from_hf(dict(RAW, head_dim=4))[1]
    family, raw = config_to_hf(cfg, dtype="bfloat16")
    assert family == "qwen3" and raw["layer_types"] == ["full_attention"] * 2
    assert config_from_hf(raw)[1] == dataclasses.replace(cfg, param_dtype="float32")


def test_an_mlp_bias_keeps_a_config_from_qwen3():
    cfg = config_from_hf(RAW)[1]
    assert qwen3.mismatches(cfg) == []
    assert "mlp_bias=True (needs False)" in qwen3.mismatches(dataclasses.replace(cfg, mlp_bias=True))
