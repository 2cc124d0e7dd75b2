"""DecoderConfig validation, presets and parameter counts."""

import dataclasses
import json
import math

import jax
import numpy as np
import pytest
from flax import nnx

from lostmid_jax.nn import Decoder, DecoderConfig, param_count, preset

BAD_CONFIGS = [
    (dict(depth=-1), "depth"),
    (dict(depth=2.5), "depth"),
    (dict(width=0), "width"),
    (dict(heads=0), "heads"),
    (dict(width=32, heads=3), "heads"),
    (dict(heads=4, kv_heads=3), "kv_heads"),
    (dict(head_dim=0), "head_dim"),
    (dict(attention="sparse"), "attention"),
    (dict(mask="random"), "mask"),
    (dict(mask="sliding_window"), "window"),
    (dict(mask="sliding_window", window=0), "window"),
    (dict(mask="causal", window=3), "window"),
    (dict(mask="prefix_lm"), "prefix"),
    (dict(mask="prefix_lm", prefix=-1), "prefix"),
    (dict(mask="causal", prefix=2), "prefix"),
    (dict(position="sinusoidal"), "position"),
    (dict(position="rope", width=12, heads=4), "head_dim"),
    (dict(rope_theta=-1.0), "rope_theta"),
    (dict(max_positions=0), "max_positions"),
    (dict(norm="batchnorm"), "norm"),
    (dict(norm_eps=0.0), "norm_eps"),
    (dict(mlp="relu"), "mlp"),
    (dict(mlp_width=0), "mlp_width"),
    (dict(attn_mix=1.5), "attn_mix"),
    (dict(attn_mix=-0.1), "attn_mix"),
    (dict(depth=2, attn_mix=(0.5,)), "attn_mix"),
    (dict(depth=2, attn_mix=[0.5, 0.5]), "attn_mix"),
    (dict(attn_mix=0.5, residual=False), "attn_mix"),
    (dict(init="xavier"), "init"),
    (dict(init_std=-0.02), "init_std"),
    (dict(vocab_size=0), "vocab_size"),
    (dict(param_dtype="int32"), "param_dtype"),
    (dict(dtype="float8"), "dtype"),
    (dict(qkv_bias="False"), "qkv_bias"),
    (dict(out_bias=1), "out_bias"),
    (dict(norm_bias=None), "norm_bias"),
    (dict(pre_norm="False"), "pre_norm"),
    (dict(final_norm=0), "final_norm"),
    (dict(mlp_bias="True"), "mlp_bias"),
    (dict(residual="False"), "residual"),
    (dict(tie_embeddings=np.array([True])), "tie_embeddings"),
    (dict(rope_theta=np.float32("nan")), "rope_theta"),
]


def test_numpy_scalars_are_converted_once():
    """np.bool_, NumPy ints and floats are accepted and stored as Python values (JSON, hashing)."""
    cfg = DecoderConfig(tie_embeddings=np.bool_(False), width=np.int64(32), rope_theta=np.float32(1e4),
                        norm_eps=np.array(1e-5))
    assert cfg.tie_embeddings is False and type(cfg.width) is int
    assert type(cfg.rope_theta) is float and type(cfg.norm_eps) is float
    hash(cfg)


@pytest.mark.parametrize("kwargs,field", BAD_CONFIGS, ids=[f for _, f in BAD_CONFIGS])
def test_bad_config_raises_naming_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        DecoderConfig(**kwargs)


def test_bad_override_of_preset_raises():
    with pytest.raises(ValueError, match="kv_heads"):
        preset("qwen2-0.5b", kv_heads=4)
    with pytest.raises(ValueError, match="name"):
        preset("gpt5")


def test_config_is_frozen_keyword_only_and_hashable():
    cfg = DecoderConfig(depth=3, attn_mix=(0.1, 0.2, 0.3))
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.depth = 4
    with pytest.raises(TypeError):
        DecoderConfig(3)  # noqa
    assert hash(cfg) == hash(DecoderConfig(depth=3, attn_mix=(0.1, 0.2, 0.3)))
    assert cfg.layer_mix() == (0.1, 0.2, 0.3)
    assert DecoderConfig(depth=2, attn_mix=0.5).layer_mix() == (0.5, 0.5)


def test_config_is_architecture_only_and_round_trips_through_json():
    names = {f.name for f in dataclasses.fields(DecoderConfig)}
    assert not names & {"remat", "attn_block", "attn_keep_probs", "keep_probs", "unroll_layers", "attn_impl"}
    cfg = preset("toy", depth=3, attn_mix=(0.1, 0.2, 0.3), width=np.int64(64))
    assert type(cfg.width) is int  # stored in its canonical type
    assert DecoderConfig.from_dict(json.loads(json.dumps(dataclasses.asdict(cfg)))) == cfg


def test_every_field_is_documented():
    doc = DecoderConfig.__doc__
    for f in dataclasses.fields(DecoderConfig):
        assert f"  {f.name}:" in doc, f.name


def _count_from_eval_shape(cfg):
    abstract = nnx.eval_shape(lambda: Decoder(cfg, rngs=nnx.Rngs(0)))
    leaves = jax.tree.leaves(nnx.state(abstract, nnx.Param))
    assert all(isinstance(p, jax.ShapeDtypeStruct) for p in leaves)  # nothing allocated
    return sum(math.prod(p.shape) for p in leaves)


# Published totals (embeddings included): HF GPT2Model / Qwen2ForCausalLM with tied head.
@pytest.mark.parametrize("name,expected", [
    ("gpt2-small", 124_439_808),
    ("gpt2-medium", 354_823_168),
    ("qwen2-0.5b", 494_032_768),
])
def test_preset_parameter_counts(name, expected):
    assert _count_from_eval_shape(preset(name)) == expected


def test_param_count_helper_counts_from_eval_shape():
    cfg = preset("toy", depth=3)
    assert param_count(cfg) == _count_from_eval_shape(cfg)


def test_untied_head_adds_vocab_by_width():
    cfg = preset("toy")
    untied = preset("toy", tie_embeddings=False)
    assert param_count(untied) - param_count(cfg) == cfg.vocab_size * cfg.width


def test_linear_value_has_no_query_key_params():
    soft = preset("toy", mlp="none")
    lv = preset("toy", mlp="none", attention="linear-value")
    g, k = soft.resolved_kv_heads, soft.resolved_head_dim
    per_layer = soft.width * (soft.heads * k + g * k) + soft.heads * k + g * k  # kernels + biases
    assert param_count(soft) - param_count(lv) == soft.depth * per_layer
    assert param_count(preset("toy", attention="uniform")) == param_count(preset("toy"))
