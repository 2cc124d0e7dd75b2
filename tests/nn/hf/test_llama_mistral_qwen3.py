"""load_hf / save_hf for Llama, Mistral and Qwen3 against transformers' own classes (tiny random models,
no network), presets with the real models' parameter counts, and the refused config variants."""

import dataclasses
import json
import shutil

import jax
import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from lostmid_jax.analysis import influence_profile  # noqa: E402
from lostmid_jax.nn import Decoder, RopeScaling, load_hf, param_count, preset, rope, save_hf  # noqa: E402
from lostmid_jax.nn.hf.files import read_tensors  # noqa: E402
from lostmid_jax.nn.hf.families import config_from_hf  # noqa: E402
from lostmid_jax.nn.positions import rope_inv_freq  # noqa: E402

from hf_helpers import base_model  # noqa: E402

torch.set_num_threads(1)  # tiny models: torch's thread pool next to XLA's on shared cores costs ~100x
L, V, D = 12, 64, 32
_SHAPE = dict(vocab_size=V, hidden_size=D, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
              intermediate_size=48, max_position_embeddings=64)
# Each tiny config exercises its family's own features:
#   llama:   llama3 RoPE scaling whose three frequency regimes all occur at head_dim 8 (wavelengths 6.3, 63
#            kept; 628 smoothed; 6283 divided by the factor), q/k/v/o and MLP biases, tied embeddings;
#   mistral: a sliding window of 5 < L = 12, head_dim 16 != hidden / heads = 8, untied;
#   qwen3:   per-head q/k RMSNorm, head_dim 16 independent of the width, linear RoPE scaling, tied.
TINY = {
    "llama": (transformers.LlamaConfig, transformers.LlamaForCausalLM, dict(
        rope_parameters=dict(rope_type="llama3", rope_theta=10000.0, factor=8.0, low_freq_factor=1.0,
                             high_freq_factor=4.0, original_max_position_embeddings=1024),
        attention_bias=True, mlp_bias=True, tie_word_embeddings=True)),
    "mistral": (transformers.MistralConfig, transformers.MistralForCausalLM, dict(
        sliding_window=5, head_dim=16, rope_parameters=dict(rope_type="default", rope_theta=500.0))),
    "qwen3": (transformers.Qwen3Config, transformers.Qwen3ForCausalLM, dict(
        head_dim=16, rope_parameters=dict(rope_type="linear", rope_theta=1000.0, factor=2.0),
        tie_word_embeddings=True)),
}


def _tiny(name: str, seed: int = 0):
    """A tiny causal LM of family ``name`` with every parameter random (norm scales and biases included,
    so a swapped or dropped tensor shows), eval mode, eager attention, float32."""
    config_cls, model_cls, extra = TINY[name]
    torch.manual_seed(seed)
    model = model_cls(config_cls(attn_implementation="eager", **_SHAPE, **extra)).eval()
    with torch.no_grad():
        for pname, p in model.named_parameters():
            if pname.endswith("norm.weight"):
                p.copy_(1.0 + 0.2 * torch.randn_like(p))
            else:
                p.normal_(0.0, 0.25 if pname.endswith("weight") else 0.1)
    return model


@pytest.fixture(scope="module", params=tuple(TINY))
def saved(request, tmp_path_factory):
    path = tmp_path_factory.mktemp(request.param)
    hf = _tiny(request.param)
    hf.save_pretrained(path)
    cfg, model = load_hf(path)
    return request.param, path, hf, cfg, model


def _x(seed=0):
    return np.random.default_rng(seed).normal(size=(L, D)).astype(np.float32)


def _hidden(hf, x):
    with torch.no_grad():
        return base_model(hf)(inputs_embeds=torch.from_numpy(x)[None]).last_hidden_state[0].numpy()


def test_config_read(saved):
    name, _, _, cfg, model = saved
    assert model.cfg == cfg and (cfg.depth, cfg.width, cfg.heads, cfg.kv_heads, cfg.vocab_size) == (2, D, 4, 2, V)
    assert cfg.position == "rope" and cfg.mlp == "swiglu" and cfg.norm == "rmsnorm" and cfg.mlp_width == 48
    if name == "llama":
        assert cfg.rope_scaling == RopeScaling(kind="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                                               original_max_positions=1024)
        assert cfg.qkv_bias and cfg.out_bias and cfg.mlp_bias and cfg.tie_embeddings and cfg.resolved_head_dim == 8
    if name == "mistral":
        assert (cfg.mask, cfg.window, cfg.head_dim, cfg.rope_theta) == ("sliding_window", 5, 16, 500.0)
        assert not cfg.tie_embeddings and cfg.rope_scaling is None
    if name == "qwen3":
        assert cfg.qk_norm and cfg.head_dim == 16 and cfg.rope_scaling == RopeScaling(kind="linear", factor=2.0)
        assert not cfg.qkv_bias and cfg.tie_embeddings


def test_hidden_states_and_logits_match_transformers(saved):
    """Same input embeddings -> same last_hidden_state; same tokens -> same logits (float32, 1e-5)."""
    _, _, hf, _, model = saved
    x = _x()
    ref = _hidden(hf, x)
    y = np.asarray(model(x))
    assert y.dtype == np.float32 and np.abs(ref).max() > 0.5
    assert np.abs(y - ref).max() < 1e-5  # measured <= 2.2e-6
    tokens = np.random.default_rng(1).integers(0, V, size=L)
    with torch.no_grad():
        ref_logits = hf(input_ids=torch.from_numpy(tokens)[None]).logits[0].numpy()
    assert np.abs(np.asarray(model.lm(tokens.astype(np.int32))) - ref_logits).max() < 1e-5  # measured <= 4.6e-6


def test_the_family_feature_matters(saved, tmp_path):
    """The parity above can fail: the same weights without the family's own feature (llama3 / linear
    RoPE scaling, the sliding window) give hidden states off by far more than 1e-5."""
    name, path, hf, _, _ = saved
    shutil.copy(path / "model.safetensors", tmp_path)
    raw = json.loads((path / "config.json").read_text())
    if name == "mistral":
        raw["sliding_window"] = None
    else:
        raw["rope_parameters"] = {"rope_type": "default", "rope_theta": raw["rope_parameters"]["rope_theta"]}
    (tmp_path / "config.json").write_text(json.dumps(raw))
    _, plain = load_hf(tmp_path)
    x = _x()
    assert np.abs(np.asarray(plain(x)) - _hidden(hf, x)).max() > 1e-3


def test_influence_profile_matches_torch_autograd(saved):
    """||d y_L / d x_j||_F by our Jacobian engine vs torch.autograd.functional.jacobian on the HF model."""
    name, _, hf, _, model = saved
    x = _x(seed=2)
    last = lambda e: base_model(hf)(inputs_embeds=e[None]).last_hidden_state[0, -1]  # noqa: E731
    jac = torch.autograd.functional.jacobian(last, torch.from_numpy(x), vectorize=True)  # [D, L, D]
    ref = np.sqrt((jac.numpy().astype(np.float64) ** 2).sum(axis=(0, 2)))  # [L]
    ours = influence_profile(model, x, method="exact").norms
    np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=0)  # measured <= 1.3e-6
    if name == "mistral":  # two layers of window 5 reach back 2 (5 - 1) positions: the first 3 get exactly 0
        assert np.array_equal(ref[:3], np.zeros(3)) and np.all(ref[3:] > 0)


def test_export_round_trip(saved, tmp_path):
    """save_hf writes the checkpoint's tensors bit for bit, and transformers' from_pretrained on the
    export gives the original model's logits."""
    name, path, hf, cfg, model = saved
    save_hf(model, cfg, tmp_path)
    original, exported = read_tensors(path), read_tensors(tmp_path)
    assert set(exported) == set(original)
    assert all(np.array_equal(exported[k], v) for k, v in original.items())
    assert json.loads((tmp_path / "config.json").read_text())["model_type"] == name
    cfg2, _ = load_hf(tmp_path)
    assert cfg2 == cfg
    again = transformers.AutoModelForCausalLM.from_pretrained(tmp_path, attn_implementation="eager").eval()
    assert type(again) is type(hf)
    ids = torch.arange(L)[None] % V
    with torch.no_grad():
        np.testing.assert_array_equal(again(input_ids=ids).logits.numpy(), hf(input_ids=ids).logits.numpy())


def test_sharded_checkpoint(tmp_path):
    """A sharded save (model.safetensors.index.json) loads to the same parameters."""
    hf = _tiny("mistral")
    hf.save_pretrained(tmp_path / "one")
    hf.save_pretrained(tmp_path / "sharded", max_shard_size="20KB")
    assert (tmp_path / "sharded" / "model.safetensors.index.json").is_file()
    _, a = load_hf(tmp_path / "one")
    _, b = load_hf(tmp_path / "sharded")
    assert all(np.array_equal(np.asarray(u), np.asarray(v)) for u, v in zip(jax.tree.leaves(a), jax.tree.leaves(b)))


# ----------------------------------------------------------------------------- RoPE scaling
@pytest.mark.parametrize("params", [
    dict(rope_type="llama3", factor=32.0, low_freq_factor=1.0, high_freq_factor=4.0,
         original_max_position_embeddings=8192),
    dict(rope_type="linear", factor=4.0),
])
def test_rope_frequencies_match_transformers(params):
    """rope_inv_freq at Llama-3.2-1B's shape (head_dim 64, theta 5e5) equals transformers' own
    _compute_*_parameters (float32), and rope() rotates by those frequencies."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    config = transformers.LlamaConfig(hidden_size=2048, num_attention_heads=32, head_dim=64,
                                      rope_parameters=dict(rope_theta=500000.0, **params))
    ref, attention_factor = ROPE_INIT_FUNCTIONS[params["rope_type"]](config, "cpu")
    assert attention_factor == 1.0
    _, cfg = config_from_hf(json.loads(config.to_json_string()))
    ours = np.asarray(rope_inv_freq(64, cfg.rope_theta, cfg.rope_scaling))
    np.testing.assert_allclose(ours, ref.numpy(), rtol=2e-7, atol=0)
    if params["rope_type"] == "llama3":  # all three regimes occur: kept, smoothed, divided by the factor
        base = np.asarray(rope_inv_freq(64, 500000.0))
        ratio = ours / base
        assert ratio[0] == 1 and np.isclose(ratio[-1], 1 / 32) and np.any((ratio < 1) & (ratio > 1 / 32))
    x = np.zeros((1, 5, 1, 64), np.float32)
    x[..., 31], x[..., 63] = 1.0, 0.0  # the lowest-frequency pair (31, 63) at angle 0
    rotated = np.asarray(rope(x, np.arange(5)[None], cfg.rope_theta, cfg.rope_scaling))
    np.testing.assert_allclose(rotated[0, :, 0, 63], np.sin(np.arange(5) * ours[31]), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("fields, match", [
    (dict(kind="ntk", factor=2.0), "rope_scaling.kind"),
    (dict(kind="linear", factor=0.0), "rope_scaling.factor"),
    (dict(kind="linear", factor=2.0, low_freq_factor=1.0), "low_freq_factor is only used"),
    (dict(kind="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0), "original_max_positions"),
    (dict(kind="llama3", factor=8.0, low_freq_factor=4.0, high_freq_factor=4.0, original_max_positions=64),
     "must exceed"),
])
def test_bad_rope_scaling(fields, match):
    with pytest.raises(ValueError, match=match):
        RopeScaling(**fields)
    with pytest.raises(ValueError, match=match):  # the dict form a JSON config holds
        preset("toy", rope_scaling=fields)


def test_rope_scaling_round_trips_through_a_dict():
    cfg = preset("llama-3.2-1b")
    assert type(cfg).from_dict(dataclasses.asdict(cfg)) == cfg and hash(cfg) == hash(preset("llama-3.2-1b"))
    with pytest.raises(ValueError, match="missing"):
        preset("toy", rope_scaling={})


def test_legacy_rope_keys_read_like_rope_parameters():
    """Hub files written by transformers 4 keep rope_scaling + rope_theta at the top level."""
    new = dict(model_type="llama", rope_parameters=dict(rope_type="llama3", rope_theta=5e5, factor=32.0,
                                                        low_freq_factor=1.0, high_freq_factor=4.0,
                                                        original_max_position_embeddings=8192), **_SHAPE)
    old = dict(model_type="llama", rope_theta=5e5, rope_scaling=dict(rope_type="llama3", factor=32.0,
                                                                      low_freq_factor=1.0, high_freq_factor=4.0,
                                                                      original_max_position_embeddings=8192),
               **_SHAPE)
    older = dict(old, rope_scaling=dict(old["rope_scaling"], type="llama3"))
    older["rope_scaling"].pop("rope_type")
    assert config_from_hf(old) == config_from_hf(new) == config_from_hf(older)


# ----------------------------------------------------------------------------- presets
# The hub's config.json of each real model (the keys that fix its shape).
REAL = {
    "llama-3.2-1b": dict(
        model_type="llama", architectures=["LlamaForCausalLM"], attention_bias=False, head_dim=64,
        hidden_act="silu", hidden_size=2048, initializer_range=0.02, intermediate_size=8192,
        max_position_embeddings=131072, mlp_bias=False, num_attention_heads=32, num_hidden_layers=16,
        num_key_value_heads=8, rms_norm_eps=1e-05, rope_theta=500000.0, tie_word_embeddings=True,
        rope_scaling=dict(factor=32.0, high_freq_factor=4.0, low_freq_factor=1.0,
                          original_max_position_embeddings=8192, rope_type="llama3"),
        vocab_size=128256),
    "mistral-7b": dict(
        model_type="mistral", architectures=["MistralForCausalLM"], hidden_act="silu", hidden_size=4096,
        initializer_range=0.02, intermediate_size=14336, max_position_embeddings=32768, num_attention_heads=32,
        num_hidden_layers=32, num_key_value_heads=8, rms_norm_eps=1e-05, rope_theta=10000.0,
        sliding_window=4096, tie_word_embeddings=False, vocab_size=32000),
    "qwen3-0.6b": dict(
        model_type="qwen3", architectures=["Qwen3ForCausalLM"], attention_bias=False, head_dim=128,
        hidden_act="silu", hidden_size=1024, initializer_range=0.02, intermediate_size=3072,
        max_position_embeddings=40960, max_window_layers=28, num_attention_heads=16, num_hidden_layers=28,
        num_key_value_heads=8, rms_norm_eps=1e-06, rope_scaling=None, rope_theta=1000000, sliding_window=None,
        tie_word_embeddings=True, use_sliding_window=False, vocab_size=151936),
}


def _published_count(c: dict, *, qk_norm: bool) -> int:
    """Parameters of a Llama-style decoder from its config.json: embedding V D (twice if untied), per
    layer q [D, N Dh], k and v [D, G Dh], o [N Dh, D], gate/up/down 3 D F, two RMSNorm scales 2 D
    (+ q/k norm scales 2 Dh for Qwen3), and the final RMSNorm D."""
    d, n, g, f, v = (c[k] for k in ("hidden_size", "num_attention_heads", "num_key_value_heads",
                                    "intermediate_size", "vocab_size"))
    dh = c.get("head_dim") or d // n
    layer = d * n * dh + 2 * d * g * dh + n * dh * d + 3 * d * f + 2 * d + (2 * dh if qk_norm else 0)
    return v * d * (1 if c["tie_word_embeddings"] else 2) + c["num_hidden_layers"] * layer + d


@pytest.mark.parametrize("name", tuple(REAL))
def test_preset_is_the_real_model(name):
    """The preset is what load_hf reads from the real config.json, and its parameter count (eval_shape,
    nothing allocated) equals the count derived from that config.json."""
    family, cfg = config_from_hf(REAL[name])
    assert cfg == preset(name) and family == REAL[name]["model_type"]
    assert param_count(preset(name)) == _published_count(REAL[name], qk_norm=family == "qwen3")


def test_published_totals():
    """The formula against the model cards: Llama-3.2-1B 1.23B (1,235,814,400 on the hub), Mistral-7B
    7.24B, Qwen3-0.6B 0.44B without embeddings (the hub's 0.75B counts the tied lm_head again)."""
    assert _published_count(REAL["llama-3.2-1b"], qk_norm=False) == 1_235_814_400
    assert round(_published_count(REAL["mistral-7b"], qk_norm=False) / 1e9, 2) == 7.24
    qwen3 = _published_count(REAL["qwen3-0.6b"], qk_norm=True)
    assert round((qwen3 - 151936 * 1024) / 1e9, 2) == 0.44
    assert qwen3 + 151936 * 1024 == 751_632_384


@pytest.mark.slow
@pytest.mark.parametrize("name", tuple(REAL))
def test_parameter_count_equals_transformers_on_meta(name):
    """transformers builds the real architecture on the meta device (no weights); same count."""
    config = transformers.AutoConfig.for_model(**REAL[name])
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(config)
    assert sum(p.numel() for p in model.parameters()) == param_count(preset(name))


# ----------------------------------------------------------------------------- refused variants
def _raw(family, **changes):
    raw = dict(model_type=family, **_SHAPE)
    raw.update(changes)
    return raw


@pytest.mark.parametrize("family, changes, match", [
    ("llama", dict(rope_parameters=dict(rope_type="longrope", factor=4.0)), r"rope_parameters\.rope_type='longrope'"),
    ("llama", dict(rope_scaling=dict(type="su", factor=2.0), rope_theta=1e4), r"rope_scaling\.rope_type"),
    ("llama", dict(rope_parameters=dict(rope_type="yarn")), "missing the key 'factor'"),
    ("llama", dict(rope_parameters=dict(rope_type="llama3", factor=8.0, high_freq_factor=4.0)), "low_freq_factor"),
    ("llama", dict(partial_rotary_factor=0.5), "partial_rotary_factor"),
    ("llama", dict(hidden_act="gelu"), "hidden_act"),
    ("llama", dict(num_hidden_layers=None), "num_hidden_layers"),
    ("mistral", dict(layer_types=["sliding_attention", "full_attention"]), "layer_types"),
    ("qwen3", dict(use_sliding_window=True, sliding_window=4, max_window_layers=1), "use_sliding_window"),
    ("qwen3", dict(layer_types=["full_attention", "sliding_attention"]), "layer_types"),
    ("qwen3", dict(rope_parameters={"full_attention": dict(rope_type="default")}), "per-layer"),
])
def test_refused_variants(family, changes, match):
    raw = _raw(family, **changes)
    if changes.get("num_hidden_layers", 1) is None:
        raw.pop("num_hidden_layers")
    with pytest.raises(ValueError, match=match):
        config_from_hf(raw)


def test_defaults_of_missing_keys():
    """Keys a config.json omits take transformers' defaults: Mistral's window 4096 (null: causal),
    Qwen3's head_dim 128."""
    raw = _raw("mistral")
    assert config_from_hf(raw)[1].window == 4096
    assert config_from_hf(dict(raw, sliding_window=None))[1].mask == "causal"
    assert config_from_hf(_raw("qwen3"))[1].resolved_head_dim == 128
    assert config_from_hf(_raw("llama"))[1].resolved_head_dim == 8


def test_export_choice_and_refusals(tmp_path):
    """A causal Mistral is written as a Llama (the same architecture); attention sinks, a prefix-LM mask
    and q/k norms with a window match no family, and save_hf refuses them naming the field."""
    from flax import nnx

    from lostmid_jax.nn.hf.families import family_of

    cfg = config_from_hf(_raw("mistral", sliding_window=None))[1]
    assert family_of(cfg) == "llama"
    assert family_of(dataclasses.replace(cfg, mask="sliding_window", window=3)) == "mistral"
    assert family_of(dataclasses.replace(cfg, qk_norm=True)) == "qwen3"
    for bad, match in ((dict(mask="sliding_window", window=3, sinks=1), "sinks=1"),
                       (dict(mask="prefix_lm", prefix=2), "mask='prefix_lm'"),
                       (dict(mask="sliding_window", window=3, qk_norm=True), "qk_norm=True")):
        bad_cfg = dataclasses.replace(cfg, **bad)
        abstract = nnx.eval_shape(lambda c=bad_cfg: Decoder(c, rngs=nnx.Rngs(0)))
        with pytest.raises(ValueError, match=match):
            save_hf(abstract, bad_cfg, tmp_path)
