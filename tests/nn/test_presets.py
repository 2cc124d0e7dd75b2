"""nn/presets.py: named DecoderConfigs and their overrides."""

import dataclasses

import pytest

from lostmid_jax.nn import DecoderConfig
from lostmid_jax.nn.presets import PRESETS, preset


def test_every_preset_is_a_valid_config_and_overrides_are_validated_again():
    assert all(isinstance(cfg, DecoderConfig) for cfg in PRESETS.values())
    cfg = preset("gpt2-small", position="rope", param_dtype="float64")
    assert (cfg.position, cfg.param_dtype) == ("rope", "float64")
    assert dataclasses.replace(cfg, position="learned", param_dtype="float32") == PRESETS["gpt2-small"]
    with pytest.raises(ValueError, match="width"):
        preset("toy", width=0)


def test_published_shapes():
    small, qwen = preset("gpt2-small"), preset("qwen2-0.5b")
    assert (small.depth, small.width, small.heads, small.vocab_size) == (12, 768, 12, 50257)
    assert (qwen.depth, qwen.width, qwen.heads, qwen.resolved_kv_heads) == (24, 896, 14, 2)


def test_unknown_names_and_fields_are_refused():
    with pytest.raises(ValueError, match="name must be one of"):
        preset("gpt5")
    with pytest.raises(ValueError, match=r"DecoderConfig has no field\(s\) \['layers'\]"):
        preset("toy", layers=3)
