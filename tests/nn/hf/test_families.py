"""nn/hf/families.py: the registry from model_type and from a DecoderConfig to a family module."""

import dataclasses

import pytest

from lostmid_jax.nn.hf.families import FAMILIES, MODULES, config_from_hf, config_to_hf, family_of

SHAPES = {
    "gpt2": dict(n_layer=1, n_embd=8, n_head=2, n_positions=16, vocab_size=11),
    "qwen2": dict(num_hidden_layers=1, hidden_size=8, num_attention_heads=2, intermediate_size=16, vocab_size=11),
    "llama": dict(num_hidden_layers=1, hidden_size=8, num_attention_heads=2, intermediate_size=16, vocab_size=11),
    "mistral": dict(num_hidden_layers=1, hidden_size=8, num_attention_heads=2, num_key_value_heads=1,
                    intermediate_size=16, vocab_size=11, sliding_window=4),
    "qwen3": dict(num_hidden_layers=1, hidden_size=8, num_attention_heads=2, num_key_value_heads=2, head_dim=4,
                  intermediate_size=16, vocab_size=11),
    "bloom": dict(n_layer=1, hidden_size=8, n_head=2, vocab_size=11),
    "mpt": dict(n_layers=1, d_model=8, n_heads=2, vocab_size=11),
}


def test_every_family_module_is_registered_once():
    assert FAMILIES == tuple(MODULES) and set(FAMILIES) == set(SHAPES)
    assert all(MODULES[f].FAMILY == f for f in FAMILIES)


@pytest.mark.parametrize("family", list(SHAPES))
def test_a_config_read_as_a_family_is_exported_as_that_family(family):
    cfg = config_from_hf(dict(SHAPES[family], model_type=family))[1]
    assert family_of(cfg) == family
    written, raw = config_to_hf(cfg, dtype="bfloat16")
    assert written == family and raw["torch_dtype"] == raw["dtype"] == "bfloat16"


def test_unknown_model_type_and_unexportable_configs_are_named():
    with pytest.raises(ValueError, match="model_type='gemma' is not supported"):
        config_from_hf(dict(model_type="gemma"))
    cfg = config_from_hf(dict(SHAPES["llama"], model_type="llama"))[1]
    with pytest.raises(ValueError, match="vocab_size must be set"):
        family_of(dataclasses.replace(cfg, vocab_size=None))
    with pytest.raises(ValueError, match="matches no family"):
        family_of(dataclasses.replace(cfg, norm="layernorm"))
    alibi = config_from_hf(dict(SHAPES["bloom"], model_type="bloom"))[1]
    with pytest.raises(ValueError, match="matches neither BLOOM"):
        family_of(dataclasses.replace(alibi, mlp="swiglu"))
