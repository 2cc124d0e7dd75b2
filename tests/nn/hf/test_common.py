"""nn/hf/common.py: config.json type checks and key helpers the families share."""

import pytest

from lostmid_jax.nn import preset
from lostmid_jax.nn.hf.common import check_types, first_key, fixed_mismatches, head_dim, refuse, require


@pytest.mark.parametrize("raw,match", [
    ({"tie_word_embeddings": "false"}, "tie_word_embeddings must be true or false, got \"false\" \\(a string\\)"),
    ({"rms_norm_eps": [1e-6]}, "rms_norm_eps must be a number"), ({"rope_theta": True}, "rope_theta must be a number"),
    ({"hidden_size": 8.0}, "hidden_size must be an integer"), ({"num_hidden_layers": True}, "an integer"),
])
def test_json_types_are_checked(raw, match):
    with pytest.raises(ValueError, match=match):
        check_types(raw)


def test_good_types_and_nulls_pass():
    raw = {"tie_word_embeddings": False, "rms_norm_eps": 1e-6, "hidden_size": 8, "head_dim": None, "other": "x"}
    assert check_types(raw) is raw


def test_key_helpers():
    assert require({"a": 1}, "a", "gpt2") == 1 and first_key({"n_embed": 8}, ("hidden_size", "n_embed"), "bloom") == 8
    with pytest.raises(ValueError, match=r"config.json \(gpt2\) is missing the key 'n_layer'"):
        require({}, "n_layer", "gpt2")
    with pytest.raises(ValueError, match="missing the key 'hidden_size'"):
        first_key({}, ("hidden_size", "n_embed"), "bloom")
    with pytest.raises(ValueError, match="^config.json x=1 is not supported$"):
        refuse(True, "x=1 is not supported")
    refuse(False, "never")


def test_head_dim_is_none_when_it_is_width_over_heads():
    assert head_dim({"head_dim": 4, "hidden_size": 8, "num_attention_heads": 2}) is None
    assert head_dim({"head_dim": 16, "hidden_size": 8, "num_attention_heads": 2}) == 16
    assert head_dim({"hidden_size": 8, "num_attention_heads": 2}, default=128) == 128


def test_fixed_mismatches_name_field_value_and_need():
    cfg = preset("toy", norm="rmsnorm")
    assert fixed_mismatches(cfg, {"norm": "layernorm", "depth": cfg.depth}) == ["norm='rmsnorm' (needs 'layernorm')"]
