"""nn/hf/rope.py: config.json's RoPE keys <-> rope_theta and RopeScaling (no torch)."""

import pytest

from lostmid_jax.nn.hf.families import config_from_hf
from lostmid_jax.nn.hf.rope import mismatches, rope_from_hf, rope_parameters
from lostmid_jax.nn.rope_scaling import RopeScaling

SHAPE = dict(model_type="llama", num_hidden_layers=1, hidden_size=8, num_attention_heads=2, intermediate_size=16,
             vocab_size=11, max_position_embeddings=64)


@pytest.mark.parametrize("params,expected", [
    ({}, (10000.0, None)),
    (dict(rope_type="default", rope_theta=500.0), (500.0, None)),
    (dict(rope_type="linear", factor=2.0), (10000.0, RopeScaling(kind="linear", factor=2.0))),
    (dict(rope_type="dynamic", factor=3.0), (10000.0, RopeScaling(kind="dynamic", factor=3.0,
                                                                  original_max_positions=64))),
    (dict(rope_type="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
          original_max_position_embeddings=16),
     (10000.0, RopeScaling(kind="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                           original_max_positions=16))),
    (dict(rope_type="yarn", factor=4.0, beta_fast=32.0),
     (10000.0, RopeScaling(kind="yarn", factor=4.0, original_max_positions=64, beta_fast=32.0))),
])
def test_each_rope_type_is_read(params, expected):
    assert rope_from_hf(dict(SHAPE, rope_parameters=params)) == expected


def test_older_spellings_read_alike():
    new = rope_from_hf(dict(SHAPE, rope_parameters=dict(rope_type="linear", factor=2.0, rope_theta=7.0)))
    assert rope_from_hf(dict(SHAPE, rope_theta=7.0, rope_scaling=dict(type="linear", factor=2.0))) == new
    both = dict(SHAPE, rope_parameters=dict(rope_type="default"), rope_scaling=dict(rope_type="linear", factor=2.0))
    assert rope_from_hf(both)[1].kind == "linear"  # rope_scaling wins, as in transformers
    top = dict(SHAPE, original_max_position_embeddings=32,
               rope_parameters=dict(rope_type="yarn", factor=2.0))
    assert rope_from_hf(top)[1].original_max_positions == 32


@pytest.mark.parametrize("params", [dict(rope_type="linear", factor=2.0),
                                    dict(rope_type="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                                         original_max_position_embeddings=16),
                                    dict(rope_type="yarn", factor=4.0, original_max_position_embeddings=16,
                                         mscale=1.0, truncate=False)])
def test_written_parameters_read_back_to_the_same_config(params):
    cfg = config_from_hf(dict(SHAPE, rope_parameters=params))[1]
    assert rope_from_hf(dict(SHAPE, rope_parameters=rope_parameters(cfg))) == (cfg.rope_theta, cfg.rope_scaling)


def test_a_dynamic_scaling_transformers_cannot_express_is_a_mismatch():
    cfg = config_from_hf(dict(SHAPE, rope_parameters=dict(rope_type="dynamic", factor=2.0)))[1]
    assert mismatches(cfg) == []
    import dataclasses

    other = dataclasses.replace(cfg, rope_scaling=dataclasses.replace(cfg.rope_scaling, original_max_positions=32))
    assert "original_max_positions=32 != max_positions=64" in mismatches(other)[0]


@pytest.mark.parametrize("raw,match", [
    (dict(rope_parameters=[1, 2]), "rope_parameters must be a JSON object"),
    (dict(rope_parameters=dict(rope_type="su", factor=2.0)), "rope_type='su' is not supported"),
    (dict(rope_parameters=dict(rope_type="linear")), "missing the key 'factor'"),
    (dict(partial_rotary_factor=0.5), "partial_rotary_factor=0.5"),
])
def test_refused_rope_keys(raw, match):
    with pytest.raises(ValueError, match=match):
        rope_from_hf(dict(SHAPE, **raw))
