"""load_hf / save_hf against transformers' own BLOOM and MPT (tiny random models, head counts not powers of two),
the refused config variants, and the bloom-560m / mpt-7b presets' parameter counts."""

import dataclasses
import json

import jax
import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("safetensors.numpy")

from flax import nnx  # noqa: E402

from lostmid_jax.analysis import influence_profile  # noqa: E402
from lostmid_jax.nn import Decoder, load_hf, param_count, preset, save_hf  # noqa: E402
from lostmid_jax.nn.hf.files import read_tensors  # noqa: E402
from lostmid_jax.nn.hf.families import config_from_hf  # noqa: E402

from hf_helpers import base_model  # noqa: E402

torch.set_num_threads(1)  # tiny models: torch's thread pool next to XLA's on shared cores costs ~100x
L, V = 12, 64

# Head counts that are not powers of two: the ALiBi paper's slopes differ from 2^(-8 h / N) there.
TINY = {
    "bloom": dict(vocab_size=V, hidden_size=36, n_layer=2, n_head=6),
    "mpt": dict(vocab_size=V, d_model=48, n_layers=2, n_heads=12, max_seq_len=32),
    "mpt-untied": dict(vocab_size=V, d_model=24, n_layers=2, n_heads=6, max_seq_len=32, tie_word_embeddings=False),
}


def tiny_model(name: str, seed: int = 0, **overrides):
    """A tiny BloomForCausalLM / MptForCausalLM, eval mode, eager attention, float32, with every bias and norm
    parameter moved off its initial 0 / 1 (so a misplaced bias or norm cannot hide)."""
    torch.manual_seed(seed)
    kwargs = dict(TINY[name], attn_implementation="eager", **overrides)
    if name.startswith("bloom"):
        model = transformers.BloomForCausalLM(transformers.BloomConfig(**kwargs))
    else:
        model = transformers.MptForCausalLM(transformers.MptConfig(**kwargs))
    with torch.no_grad():
        for param in model.parameters():
            if param.ndim == 1:
                param.add_(0.2 * torch.randn_like(param))
    return model.eval()


def width(hf) -> int:
    return hf.config.hidden_size


@pytest.fixture(scope="module", params=tuple(TINY))
def saved(request, tmp_path_factory):
    path = tmp_path_factory.mktemp(request.param)
    hf = tiny_model(request.param)
    hf.save_pretrained(path)
    cfg, model = load_hf(path)
    return request.param, path, hf, cfg, model


def _x(d, seed=0):
    return np.random.default_rng(seed).normal(size=(L, d)).astype(np.float32)


def _tokens():
    return np.random.default_rng(1).integers(0, V, size=L)


def _hf_hidden(hf, x):
    with torch.no_grad():
        return base_model(hf)(inputs_embeds=torch.from_numpy(x)[None]).last_hidden_state[0].numpy()


def _hf_logits(hf, tokens):
    with torch.no_grad():
        return hf(input_ids=torch.from_numpy(tokens)[None]).logits[0].numpy()


def test_config_read(saved):
    name, _, hf, cfg, model = saved
    assert model.cfg == cfg and cfg.position == "alibi" and cfg.alibi_rule == "alibi"
    assert (cfg.depth, cfg.width, cfg.heads, cfg.vocab_size) == (2, width(hf), hf.config.num_attention_heads, V)
    assert cfg.heads & (cfg.heads - 1)  # not a power of two
    if name == "bloom":
        assert cfg.embed_norm and cfg.norm_bias and cfg.qkv_bias and cfg.mlp == "gelu" and cfg.tie_embeddings
    else:
        assert not (cfg.embed_norm or cfg.norm_bias or cfg.qkv_bias or cfg.out_bias or cfg.mlp_bias)
        assert cfg.mlp == "gelu-exact" and cfg.mlp_width == 4 * cfg.width and cfg.max_positions == 32
        assert cfg.tie_embeddings == (name == "mpt")


def test_hidden_states_match_transformers(saved):
    """Same input embeddings -> same last_hidden_state (BLOOM's word_embeddings_layernorm inside both stacks)."""
    name, _, hf, cfg, model = saved
    if name == "mpt-untied":
        pytest.skip("same stack as mpt")
    x = _x(cfg.width)
    y, ref = np.asarray(model(x)), _hf_hidden(hf, x)
    assert y.dtype == np.float32
    assert np.abs(y - ref).max() < 1e-5  # measured <= 1e-6


def test_logits_match_transformers(saved):
    _, _, hf, _, model = saved
    tokens = _tokens()
    ours, ref = np.asarray(model.lm(tokens.astype(np.int32))), _hf_logits(hf, tokens)
    assert np.abs(ours - ref).max() < 1e-5


def test_geometric_slopes_would_not_match(saved):
    """The parity above tells the slope rules apart: the same weights with 2^(-8 h / N) differ from transformers."""
    name, _, hf, cfg, model = saved
    if name != "bloom":
        pytest.skip("one family is enough")
    other = Decoder(dataclasses.replace(cfg, alibi_rule="geometric"), rngs=nnx.Rngs(0))
    nnx.update(other, nnx.state(model, nnx.Param))
    x = _x(cfg.width)
    assert np.abs(np.asarray(other(x)) - _hf_hidden(hf, x)).max() > 1e-3


def test_influence_profile_matches_torch_autograd(saved):
    """||d y_L / d x_j||_F by our Jacobian engine vs torch.autograd.functional.jacobian on the HF model."""
    name, _, hf, cfg, model = saved
    if name == "mpt-untied":
        pytest.skip("same stack as mpt")
    x = _x(cfg.width, seed=2)
    last = lambda e: base_model(hf)(inputs_embeds=e[None]).last_hidden_state[0, -1]  # noqa: E731
    jac = torch.autograd.functional.jacobian(last, torch.from_numpy(x), vectorize=True)  # [D, L, D]
    ref = np.sqrt((jac.numpy().astype(np.float64) ** 2).sum(axis=(0, 2)))  # [L]
    ours = influence_profile(model, x, method="exact").norms
    np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=0)


def test_export_round_trip_is_bit_exact(saved, tmp_path):
    _, path, _, cfg, model = saved
    save_hf(model, cfg, tmp_path / "out")
    original, exported = read_tensors(path), read_tensors(tmp_path / "out")
    assert set(exported) == set(original)
    for key, value in original.items():
        assert exported[key].dtype == value.dtype and np.array_equal(exported[key], value), key
    cfg2, model2 = load_hf(tmp_path / "out")
    assert cfg2 == cfg
    assert all(np.array_equal(np.asarray(u), np.asarray(v))
               for u, v in zip(jax.tree.leaves(model), jax.tree.leaves(model2), strict=True))


def test_transformers_reads_the_export(saved, tmp_path):
    _, _, hf, cfg, model = saved
    save_hf(model, cfg, tmp_path)
    again = transformers.AutoModelForCausalLM.from_pretrained(tmp_path, attn_implementation="eager").eval()
    assert type(again) is type(hf)
    tokens = _tokens()
    np.testing.assert_array_equal(_hf_logits(again, tokens), _hf_logits(hf, tokens))


def test_sharded_bare_checkpoint(saved, tmp_path):
    """BloomModel / MptModel saved without the "transformer." prefix, in shards, loads to the same weights."""
    name, _, hf, cfg, model = saved
    if name == "mpt-untied":
        pytest.skip("no lm_head in a bare model")
    hf.transformer.save_pretrained(tmp_path, max_shard_size="20KB")
    assert (tmp_path / "model.safetensors.index.json").is_file()
    cfg2, model2 = load_hf(tmp_path)
    assert cfg2 == cfg
    assert all(np.array_equal(np.asarray(u), np.asarray(v))
               for u, v in zip(jax.tree.leaves(model), jax.tree.leaves(model2), strict=True))


def test_bloom_tensor_parallel_flags(tmp_path):
    """pretraining_tp alone leaves the function unchanged (accepted, same output). With slow_but_exact=true
    transformers sums the sliced output projections without their biases: that is a different function
    (ours with those biases zeroed), so load_hf refuses it."""
    hf = tiny_model("bloom", pretraining_tp=2)
    hf.save_pretrained(tmp_path / "tp")
    cfg, model = load_hf(tmp_path / "tp")
    x = _x(cfg.width)
    assert np.abs(np.asarray(model(x)) - _hf_hidden(hf, x)).max() < 1e-5
    hf.config.slow_but_exact = True
    for module in hf.modules():
        if hasattr(module, "slow_but_exact"):
            module.slow_but_exact = True
    hf.save_pretrained(tmp_path / "exact")
    with pytest.raises(ValueError, match="slow_but_exact"):
        load_hf(tmp_path / "exact")
    for bias in (model.blocks.attn.o.bias, model.blocks.mlp.down.bias):
        bias[...] = np.zeros(bias[...].shape, np.float32)
    assert np.abs(np.asarray(model(x)) - _hf_hidden(hf, x)).max() < 1e-5


# ----------------------------------------------------------------------------- refused variants
def _raw(name):
    config = transformers.BloomConfig if name == "bloom" else transformers.MptConfig
    return config(**TINY[name]).to_dict()


@pytest.mark.parametrize("name, edit, match", [
    ("bloom", {"apply_residual_connection_post_layernorm": True}, "apply_residual_connection_post_layernorm"),
    ("bloom", {"n_inner": 100}, "n_inner"),
    ("mpt", {"attn_config": {"alibi": False}}, r"attn_config\.alibi"),
    ("mpt", {"attn_config": {"alibi_bias_max": 16}}, "alibi_bias_max"),
    ("mpt", {"attn_config": {"clip_qkv": 6.0}}, "clip_qkv"),
    ("mpt", {"attn_config": {"qk_ln": True}}, "qk_ln"),
    ("mpt", {"attn_config": {"prefix_lm": True}}, "prefix_lm"),
    ("mpt", {"attn_config": {"attn_type": "multiquery_attention"}}, "attn_type"),
    ("mpt", {"attn_config": {"attn_impl": "xformers"}}, "attn_impl"),
    ("mpt", {"attn_config": {"softmax_scale": 0.3}}, "softmax_scale"),
    ("mpt", {"no_bias": False}, "no_bias"),
    ("mpt", {"logit_scale": 0.5}, "logit_scale"),
    ("mpt", {"norm_type": "rmsnorm"}, "norm_type"),
    ("mpt", {"expansion_ratio": 2.5}, "expansion_ratio"),
])
def test_refused_variants(name, edit, match):
    raw = _raw(name)
    for key, value in edit.items():
        raw[key] = dict(raw[key], **value) if isinstance(value, dict) else value
    with pytest.raises(ValueError, match=match):
        config_from_hf(raw)


def test_accepted_variants_leave_the_function_unchanged():
    """Implementation choices and training-only keys: the same DecoderConfig."""
    raw = _raw("mpt")
    base = config_from_hf(raw)[1]
    for key, value in (("attn_impl", "flash"), ("attn_impl", "triton"), ("softmax_scale", 0.5),  # 1/sqrt(4)
                       ("attn_uses_sequence_id", True), ("attn_pdrop", 0)):
        assert config_from_hf(dict(raw, attn_config=dict(raw["attn_config"], **{key: value})))[1] == base, key
    assert config_from_hf(dict(raw, embedding_fraction=0.5, learned_pos_emb=True))[1] == base
    bloom = _raw("bloom")
    assert config_from_hf(dict(bloom, pretraining_tp=4))[1] == config_from_hf(bloom)[1]  # as bigscience/bloom


def test_mpt_expansion_ratio_other_than_4_is_refused():
    """transformers' MptForCausalLM builds an MLP of width 4 D whatever expansion_ratio says, so a
    checkpoint it writes with ratio 2 carries [4D, D] tensors: reading ratio 2 would contradict them."""
    import dataclasses

    from lostmid_jax.nn.hf.families import config_to_hf

    with pytest.raises(ValueError, match="expansion_ratio=2"):
        config_from_hf(dict(_raw("mpt"), expansion_ratio=2))
    _, cfg = config_from_hf(_raw("mpt"))
    assert cfg.mlp_width == 4 * cfg.width
    with pytest.raises(ValueError, match="mlp_width"):
        config_to_hf(dataclasses.replace(cfg, mlp_width=2 * cfg.width), dtype="float32")


def test_refused_variant_through_load_hf(saved, tmp_path):
    name, path, *_ = saved
    if name != "mpt":
        pytest.skip("one family is enough")
    raw = json.loads((path / "config.json").read_text())
    raw["attn_config"]["clip_qkv"] = 8.0
    (tmp_path / "config.json").write_text(json.dumps(raw))
    (tmp_path / "model.safetensors").write_bytes((path / "model.safetensors").read_bytes())
    with pytest.raises(ValueError, match="clip_qkv"):
        load_hf(tmp_path)


@pytest.mark.parametrize("overrides, match", [
    (dict(mlp_width=64), r"position='alibi'.*mlp_width=64"),  # BLOOM's MLP is 4 D wide
    (dict(alibi_rule="geometric"), "alibi_rule='geometric'"),  # BLOOM and MPT use the paper's slopes
    (dict(position="rope"), "embed_norm"),  # no RoPE family normalizes the input embeddings
])
def test_save_refuses_a_near_miss(overrides, match):
    cfg = preset("bloom-560m", depth=1, width=32, heads=4, vocab_size=16, **overrides)
    with pytest.raises(ValueError, match=match):
        save_hf(nnx.eval_shape(lambda: Decoder(cfg, rngs=nnx.Rngs(0))), cfg, "/nonexistent")


# ----------------------------------------------------------------------------- presets
# The published config.json files (architecture keys) of bigscience/bloom-560m and mosaicml/mpt-7b.
BLOOM_560M = {
    "architectures": ["BloomForCausalLM"], "model_type": "bloom", "apply_residual_connection_post_layernorm": False,
    "attention_dropout": 0.0, "hidden_dropout": 0.0, "hidden_size": 1024, "initializer_range": 0.02,
    "layer_norm_epsilon": 1e-05, "n_head": 16, "n_inner": None, "n_layer": 24, "pretraining_tp": 1,
    "slow_but_exact": False, "vocab_size": 250880,
}
MPT_7B = {
    "architectures": ["MPTForCausalLM"], "model_type": "mpt", "d_model": 4096, "n_heads": 32, "n_layers": 32,
    "expansion_ratio": 4, "max_seq_len": 2048, "vocab_size": 50432, "learned_pos_emb": True, "no_bias": True,
    "norm_type": "low_precision_layernorm", "logit_scale": None, "emb_pdrop": 0, "resid_pdrop": 0,
    "embedding_fraction": 1.0, "init_device": "cpu", "use_cache": False,
    "attn_config": {"alibi": True, "alibi_bias_max": 8, "attn_impl": "torch", "attn_pdrop": 0,
                    "attn_type": "multihead_attention", "attn_uses_sequence_id": False, "clip_qkv": None,
                    "prefix_lm": False, "qk_ln": False, "softmax_scale": None},
}


def bloom_parameters(c: dict) -> int:
    """Embedding and its LayerNorm; per layer two LayerNorms, fused qkv, dense, 4D MLP, all with biases; ln_f."""
    d, v, h = c["hidden_size"], c["vocab_size"], c["n_layer"]
    layer = 2 * 2 * d + (3 * d * d + 3 * d) + (d * d + d) + (4 * d * d + 4 * d) + (4 * d * d + d)
    return v * d + 2 * d + h * layer + 2 * d


def mpt_parameters(c: dict) -> int:
    """Embedding; per layer two bias-free LayerNorms, Wqkv, out_proj, up/down of width r D, no biases; norm_f."""
    d, v, h, r = c["d_model"], c["vocab_size"], c["n_layers"], c["expansion_ratio"]
    return v * d + h * (2 * d + 3 * d * d + d * d + 2 * r * d * d) + d


@pytest.mark.parametrize("name, raw, formula, published", [
    ("bloom-560m", BLOOM_560M, bloom_parameters, 559_214_592),  # the model card's count
    ("mpt-7b", MPT_7B, mpt_parameters, 6_649_286_656),  # the model card says "6.7B"
])
def test_preset_parameter_counts(name, raw, formula, published):
    """eval_shape counts (no weights allocated) equal the formula on the real config.json values."""
    assert formula(raw) == published
    assert param_count(preset(name)) == published
    assert config_from_hf(raw) == (raw["model_type"], preset(name))
