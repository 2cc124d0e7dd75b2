"""nn/hf/mpt.py: config.json <-> DecoderConfig (no torch): attn_config variants refused, the round trip."""

import math

import pytest

from lostmid_jax.nn.hf.families import config_from_hf, config_to_hf

RAW = dict(model_type="mpt", n_layers=2, d_model=8, n_heads=2, vocab_size=11)


def test_keys_read():
    cfg = config_from_hf(RAW)[1]
    assert (cfg.position, cfg.mlp, cfg.qkv_bias, cfg.norm_bias, cfg.max_positions) == \
        ("alibi", "gelu-exact", False, False, 2048)
    scaled = dict(RAW, attn_config=dict(softmax_scale=1 / math.sqrt(4), attn_impl="flash"), max_seq_len=64)
    assert config_from_hf(scaled)[1].max_positions == 64


@pytest.mark.parametrize("change,match", [
    (dict(attn_config=dict(alibi=False)), "attn_config.alibi=false"),
    (dict(attn_config=dict(alibi_bias_max=16)), "alibi_bias_max=16"),
    (dict(attn_config=dict(clip_qkv=6.0)), "clip_qkv=6.0"),
    (dict(attn_config=dict(softmax_scale=0.1)), "softmax_scale=0.1"),
    (dict(attn_config=[1]), "attn_config must be an object"),
    (dict(no_bias=False), "no_bias=false"), (dict(logit_scale=2.0), "logit_scale=2.0"),
    (dict(norm_type="rmsnorm"), "norm_type='rmsnorm'"), (dict(expansion_ratio=2), "expansion_ratio=2"),
])
def test_refused_variants(change, match):
    with pytest.raises(ValueError, match=match):
        config_from_hf(dict(RAW, **change))


def test_export_reads_back():
    cfg = config_from_hf(RAW)[1]
    family, raw = config_to_hf(cfg, dtype="float32")
    assert family == "mpt" and config_from_hf(raw)[1] == cfg
