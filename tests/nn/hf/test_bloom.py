"""nn/hf/bloom.py: config.json <-> DecoderConfig (no torch) and the per-head fused q/k/v layout."""

import numpy as np
import pytest

from lostmid_jax.nn.hf import bloom
from lostmid_jax.nn.hf.families import config_from_hf, config_to_hf

RAW = dict(model_type="bloom", n_layer=2, hidden_size=8, n_head=2, vocab_size=11)


def test_keys_read():
    cfg = config_from_hf(RAW)[1]
    assert (cfg.position, cfg.embed_norm, cfg.resolved_mlp_width, cfg.tie_embeddings) == ("alibi", True, 32, True)
    spelled = dict(model_type="bloom", num_hidden_layers=3, n_embed=8, num_attention_heads=2, vocab_size=11)
    assert config_from_hf(spelled)[1].depth == 3


@pytest.mark.parametrize("change,match", [(dict(apply_residual_connection_post_layernorm=True), "post_layernorm"),
                                          (dict(slow_but_exact=True, pretraining_tp=2), "slow_but_exact"),
                                          (dict(n_inner=16), "n_inner=16")])
def test_refused_variants(change, match):
    with pytest.raises(ValueError, match=match):
        config_from_hf(dict(RAW, **change))
    assert config_from_hf(dict(RAW, slow_but_exact=True, pretraining_tp=1))[1] == config_from_hf(RAW)[1]


def test_fused_qkv_is_interleaved_per_head_and_split_inverts_it():
    heads, dh = 2, 3
    q, k, v = (np.arange(heads * dh) + 100 * c for c in range(3))
    fused = bloom._fuse([q, k, v], heads, np)
    # rows ordered [N, 3, Dh]: head 0's q, k, v, then head 1's
    assert fused.tolist() == [0, 1, 2, 100, 101, 102, 200, 201, 202, 3, 4, 5, 103, 104, 105, 203, 204, 205]
    assert [a.tolist() for a in bloom._split(fused, heads, np)] == [q.tolist(), k.tolist(), v.tolist()]


def test_export_reads_back():
    cfg = config_from_hf(RAW)[1]
    family, raw = config_to_hf(cfg, dtype="float32")
    assert family == "bloom" and config_from_hf(raw)[1] == cfg
