"""nn/hf/gpt2.py: config.json <-> DecoderConfig (no torch): the keys read, the refused variants, the round trip."""

import dataclasses

import pytest

from lostmid_jax.nn.hf import gpt2
from lostmid_jax.nn.hf.families import config_from_hf, config_to_hf

RAW = dict(model_type="gpt2", n_layer=2, n_embd=8, n_head=2, n_positions=16, vocab_size=11)


def test_keys_read_and_defaults():
    cfg = config_from_hf(RAW)[1]
    assert (cfg.depth, cfg.width, cfg.heads, cfg.max_positions, cfg.vocab_size) == (2, 8, 2, 16, 11)
    assert (cfg.position, cfg.norm, cfg.mlp, cfg.norm_eps, cfg.tie_embeddings, cfg.init) == \
        ("learned", "layernorm", "gelu", 1e-5, True, "gpt2")
    cfg = config_from_hf(dict(RAW, n_inner=24, layer_norm_epsilon=1e-6, tie_word_embeddings=False,
                              activation_function="gelu_pytorch_tanh"))[1]
    assert (cfg.resolved_mlp_width, cfg.norm_eps, cfg.tie_embeddings) == (24, 1e-6, False)


@pytest.mark.parametrize("change,match", [(dict(activation_function="relu"), "activation_function='relu'"),
                                          (dict(scale_attn_weights=False), "scale_attn_weights=false"),
                                          (dict(scale_attn_by_inverse_layer_idx=True), "inverse_layer_idx"),
                                          (dict(n_layer=None), "n_layer")])
def test_refused_variants(change, match):
    raw = {k: v for k, v in dict(RAW, **change).items() if v is not None}
    with pytest.raises(ValueError, match=match):
        config_from_hf(raw)


def test_export_reads_back_and_mismatches_name_the_field():
    cfg = config_from_hf(dict(RAW, n_inner=24))[1]
    family, raw = config_to_hf(cfg, dtype="float32")
    assert family == "gpt2" and config_from_hf(raw)[1] == cfg
    assert gpt2.mismatches(cfg) == []
    assert "norm='rmsnorm' (needs 'layernorm')" in gpt2.mismatches(dataclasses.replace(cfg, norm="rmsnorm"))
