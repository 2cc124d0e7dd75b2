"""The pre-package module paths (nn/hf_config.py, hf_layout.py, hf_rope_families.py, hf_alibi_families.py,
hub.py, aliases that warn: lostmid_jax._moved) still work for one release and give what the family modules of nn/hf/ give."""

import warnings

import numpy as np

from lostmid_jax._moved import MovedWarning
from lostmid_jax.nn import hf
from lostmid_jax.nn.hf import bloom, families, files, llama, mistral, mpt, qwen3

with warnings.catch_warnings():  # the old modules, on purpose (each warns once: tests/test_moved.py)
    warnings.simplefilter("ignore", MovedWarning)
    from lostmid_jax.nn import hf_alibi_families, hf_config, hf_layout, hf_rope_families, hub

LLAMA = dict(model_type="llama", num_hidden_layers=2, hidden_size=16, num_attention_heads=2,
             intermediate_size=24, vocab_size=64)
BLOOM = dict(model_type="bloom", n_layer=2, hidden_size=12, n_head=3, vocab_size=64)


def test_old_names_are_the_new_objects():
    assert hf_config.config_from_hf is families.config_from_hf is hf.config_from_hf
    assert hf_config.read_config is files.read_config and hf_config.WEIGHTS == files.WEIGHTS
    assert hf_layout.to_hf is families.to_hf and hf_layout.PREFIX == families.PREFIX
    assert hub.resolve_checkpoint is hf.resolve_checkpoint
    assert hf_config.FAMILIES == ("gpt2", "qwen2", "bloom", "mpt", "llama", "mistral", "qwen3")
    assert hf_rope_families.FAMILIES == ("llama", "mistral", "qwen3")
    assert hf_alibi_families.FAMILIES == ("bloom", "mpt")
    assert hf_rope_families.rope_from_hf is llama.rope_from_hf
    assert hf_alibi_families.FIXED == {"bloom": bloom.FIXED, "mpt": mpt.FIXED}


def test_old_signatures_give_the_same_configs():
    _, cfg = hf_config.config_from_hf(LLAMA)
    assert hf_rope_families.config_from_hf("llama", LLAMA, "float32") == cfg
    assert hf_rope_families.family_of(cfg) == ("llama", families.first_match(cfg, families.ROPE_FAMILIES)[1])
    assert hf_rope_families.config_to_hf("mistral", cfg) == mistral.config_to_hf(cfg)
    assert hf_rope_families.mismatches(cfg, "qwen3") == qwen3.mismatches(cfg)
    _, bcfg = hf_config.config_from_hf(BLOOM)
    assert hf_alibi_families.config_from_hf("bloom", BLOOM, "float32") == bcfg
    assert hf_alibi_families.family_of(bcfg) == "bloom"
    assert hf_alibi_families.config_to_hf(bcfg, "bloom") == bloom.config_to_hf(bcfg)


def test_old_layout_signatures_give_the_same_tensors():
    rng = np.random.default_rng(0)
    _, cfg = hf_config.config_from_hf(BLOOM)
    hf_tensors = {name: rng.normal(size=shape) for name, shape in {
        "transformer.word_embeddings.weight": (64, 12),
        "transformer.word_embeddings_layernorm.weight": (12,), "transformer.word_embeddings_layernorm.bias": (12,),
        "transformer.ln_f.weight": (12,), "transformer.ln_f.bias": (12,)}.items()}
    for l in range(2):
        pre = f"transformer.h.{l}."
        hf_tensors.update({pre + "self_attention.query_key_value.weight": rng.normal(size=(36, 12)),
                           pre + "self_attention.query_key_value.bias": rng.normal(size=36),
                           pre + "self_attention.dense.weight": rng.normal(size=(12, 12)),
                           pre + "self_attention.dense.bias": rng.normal(size=12),
                           pre + "mlp.dense_h_to_4h.weight": rng.normal(size=(48, 12)),
                           pre + "mlp.dense_h_to_4h.bias": rng.normal(size=48),
                           pre + "mlp.dense_4h_to_h.weight": rng.normal(size=(12, 48)),
                           pre + "mlp.dense_4h_to_h.bias": rng.normal(size=12)})
        for norm in ("input_layernorm", "post_attention_layernorm"):
            hf_tensors.update({f"{pre}{norm}.weight": rng.normal(size=12), f"{pre}{norm}.bias": rng.normal(size=12)})
    paths = {("wte",), ("embed_norm", "scale"), ("embed_norm", "bias"), ("final_norm", "scale"),
             ("final_norm", "bias")}
    paths |= {("blocks", "attn", n, leaf) for n in "qkvo" for leaf in ("kernel", "bias")}
    paths |= {("blocks", "mlp", n, leaf) for n in ("up", "down") for leaf in ("kernel", "bias")}
    paths |= {("blocks", n, leaf) for n in ("norm1", "norm2") for leaf in ("scale", "bias")}
    ours = hf_alibi_families.from_hf("bloom", hf_tensors, paths, 2, cfg.heads, np)
    assert ours.keys() == bloom.from_hf(hf_tensors, paths, 2, np, heads=cfg.heads).keys() == paths
    back = hf_alibi_families.to_hf("bloom", ours, 2, cfg.heads, np)
    assert back.keys() == hf_tensors.keys()
    assert all(np.array_equal(back[k], v) for k, v in hf_tensors.items())
    assert hf_layout.to_hf("bloom", ours, 2, np, heads=cfg.heads).keys() == back.keys()
