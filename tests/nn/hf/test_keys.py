"""Allow-lists of config.json keys (lostmid_jax/nn/hf/keys.py and each family's HANDLED_KEYS / IGNORED_KEYS):
a key no family module knows is refused unless it holds transformers' default."""

from __future__ import annotations

import json

import pytest

from lostmid_jax.nn.hf.families import MODULES, config_from_hf
from lostmid_jax.nn.hf.keys import GENERIC_DEFAULTS, GENERIC_IGNORED

LLAMA = dict(model_type="llama", num_hidden_layers=1, hidden_size=8, num_attention_heads=2, intermediate_size=16,
             vocab_size=11)
GPT2 = dict(model_type="gpt2", n_layer=1, n_embd=8, n_head=2, n_positions=16, vocab_size=11)


def test_an_unknown_key_off_its_default_is_refused_in_one_line():
    with pytest.raises(ValueError) as err:
        config_from_hf(dict(LLAMA, attn_logit_softcapping=30.0))
    message = str(err.value)
    assert "attn_logit_softcapping=30.0" in message and "llama" in message and "\n" not in message


def test_an_unknown_key_at_its_default_is_accepted_and_changes_nothing():
    assert config_from_hf(dict(LLAMA, attn_logit_softcapping=None)) == config_from_hf(LLAMA)


@pytest.mark.parametrize("key,value", [("add_cross_attention", True), ("pruned_heads", {"0": [1]}),
                                       ("is_encoder_decoder", True), ("quantization_config", {"bits": 4})])
def test_base_class_keys_that_change_the_model_are_refused_off_their_default(key, value):
    with pytest.raises(ValueError, match=f"config.json {key}=.* is not supported for gpt2"):
        config_from_hf(dict(GPT2, **{key: value}))
    if key in GENERIC_DEFAULTS:
        assert config_from_hf(dict(GPT2, **{key: GENERIC_DEFAULTS[key]})) == config_from_hf(GPT2)


@pytest.mark.parametrize("raw,extra", [
    (LLAMA, dict(attention_dropout=0.1, pretraining_tp=2, bos_token_id=1, use_cache=False, torch_dtype="bfloat16")),
    (GPT2, dict(attn_pdrop=0.2, summary_type="mean", n_ctx=16, task_specific_params={"text-generation": {}})),
    # keys of bigscience/bloom-560m's and mosaicml/mpt-7b's hub files that transformers does not read
    (dict(model_type="bloom", n_layer=1, hidden_size=8, n_head=2, vocab_size=11),
     dict(attention_softmax_in_fp32=True, bias_dropout_fusion=True, masked_softmax_fusion=True, offset_alibi=100,
          skip_bias_add=True, skip_bias_add_qkv=False, unk_token_id=0)),
    (dict(model_type="mpt", n_layers=1, d_model=8, n_heads=2, vocab_size=11),
     dict(init_config={"name": "kaiming_normal_"}, init_device="cpu", verbose=0, tokenizer_name="EleutherAI/gpt-neox-20b",
          auto_map={"AutoConfig": "configuration_mpt.MPTConfig"}, emb_pdrop=0.1)),
])
def test_knowingly_ignored_keys_load_at_any_value_and_change_nothing(raw, extra):
    assert config_from_hf(dict(raw, **extra)) == config_from_hf(raw)


# The keys each family reads, pinned: a change here is a change of what config.json can say.
_LLAMA_STYLE = ["head_dim", "hidden_act", "hidden_size", "initializer_range", "intermediate_size",
                "max_position_embeddings", "num_attention_heads", "num_hidden_layers", "num_key_value_heads",
                "original_max_position_embeddings", "partial_rotary_factor", "rms_norm_eps", "rope_parameters",
                "rope_scaling", "rope_theta", "tie_word_embeddings", "vocab_size"]
HANDLED = {
    "gpt2": ["activation_function", "initializer_range", "layer_norm_epsilon", "n_embd", "n_head", "n_inner",
             "n_layer", "n_positions", "scale_attn_by_inverse_layer_idx", "scale_attn_weights", "tie_word_embeddings",
             "vocab_size"],
    "qwen2": sorted(_LLAMA_STYLE + ["use_sliding_window"]),
    "llama": sorted(_LLAMA_STYLE + ["attention_bias", "mlp_bias"]),
    "mistral": sorted(_LLAMA_STYLE + ["layer_types", "sliding_window"]),
    "qwen3": sorted(_LLAMA_STYLE + ["attention_bias", "layer_types", "use_sliding_window"]),
    "bloom": ["apply_residual_connection_post_layernorm", "hidden_size", "initializer_range", "layer_norm_epsilon",
              "n_embed", "n_head", "n_inner", "n_layer", "num_attention_heads", "num_hidden_layers", "pretraining_tp",
              "slow_but_exact", "tie_word_embeddings", "vocab_size"],
    "mpt": ["attn_config", "d_model", "expansion_ratio", "hidden_size", "initializer_range", "layer_norm_epsilon",
            "logit_scale", "max_seq_len", "n_heads", "n_layers", "no_bias", "norm_type", "num_attention_heads",
            "num_hidden_layers", "tie_word_embeddings", "vocab_size"],
}


def test_the_handled_keys_of_each_family():
    assert {family: sorted(m.HANDLED_KEYS) for family, m in MODULES.items()} == HANDLED


def test_no_key_is_both_read_and_ignored():
    for family, m in MODULES.items():
        shared = (m.HANDLED_KEYS & (m.IGNORED_KEYS | GENERIC_IGNORED)) | (m.IGNORED_KEYS & GENERIC_IGNORED)
        assert not shared, (family, shared)
    assert not GENERIC_IGNORED & set(GENERIC_DEFAULTS)


@pytest.fixture(scope="module")
def transformers():
    return pytest.importorskip("transformers")


@pytest.mark.parametrize("family", list(MODULES))
def test_every_key_of_transformers_config_class_is_known(family, transformers):
    """Each key of the family's config class (transformers, installed) is read, ignored, or generic; the
    generic ones this module says change the model have transformers' defaults; and transformers' default
    config.json of the family loads."""
    defaults = json.loads(json.dumps(transformers.AutoConfig.for_model(family).to_dict()))
    m = MODULES[family]
    unknown = set(defaults) - m.HANDLED_KEYS - m.IGNORED_KEYS - GENERIC_IGNORED - set(GENERIC_DEFAULTS)
    assert not unknown
    for key in set(defaults) & set(GENERIC_DEFAULTS):
        assert defaults[key] == GENERIC_DEFAULTS[key], key
    assert config_from_hf(defaults)[0] == family


def test_the_base_config_keys_are_known(transformers):
    base = transformers.PretrainedConfig().to_dict()
    assert not set(base) - GENERIC_IGNORED - set(GENERIC_DEFAULTS)
