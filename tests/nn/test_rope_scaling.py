"""RoPE scaling kinds "linear", "dynamic" (NTK-aware) and "yarn" against transformers' own definitions:
frequencies from modeling_rope_utils, logits of tiny random Llama and Qwen2 checkpoints saved with
save_pretrained beyond their original context, and the export back to a config.json transformers reads."""

import dataclasses
import json
import math

import numpy as np
import pytest
from flax import nnx

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from lostmid_jax.nn import Decoder, RopeScaling, load_hf, preset, save_hf  # noqa: E402
from lostmid_jax.nn.hf.families import config_from_hf  # noqa: E402
from lostmid_jax.nn.positions import rope_inv_freq  # noqa: E402

torch.set_num_threads(1)
P, V = 16, 64  # max_position_embeddings (the original context) and vocabulary of the tiny checkpoints
LONG = 40  # a sequence 2.5x beyond it
SHAPE = dict(vocab_size=V, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
             intermediate_size=48, max_position_embeddings=P)
FAMILIES = {"llama": (transformers.LlamaConfig, transformers.LlamaForCausalLM),
            "qwen2": (transformers.Qwen2Config, transformers.Qwen2ForCausalLM)}
SCALINGS = {
    "linear": dict(rope_type="linear", factor=3.0),
    "dynamic": dict(rope_type="dynamic", factor=3.0),
    "yarn": dict(rope_type="yarn", factor=4.0, original_max_position_embeddings=P),
    "yarn-deepseek": dict(rope_type="yarn", factor=4.0, original_max_position_embeddings=P, mscale=0.7,
                          mscale_all_dim=1.3, beta_fast=16.0, beta_slow=2.0, truncate=False),
}


def _hf_model(family: str, scaling: str, seed: int = 0):
    """A fresh tiny random model (every weight random, norm scales around 1), eager attention, float32."""
    config_cls, model_cls = FAMILIES[family]
    torch.manual_seed(seed)
    params = dict(rope_theta=100.0, **SCALINGS[scaling])
    model = model_cls(config_cls(attn_implementation="eager", rope_parameters=params, **SHAPE)).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(1.0 + 0.2 * torch.randn_like(p) if name.endswith("norm.weight") else 0.2 * torch.randn_like(p))
    return model


def _logits(hf, tokens):
    with torch.no_grad():
        return hf(input_ids=torch.from_numpy(tokens)[None]).logits[0].numpy()


# ----------------------------------------------------------------------------- frequencies
@pytest.mark.parametrize("scaling", ["dynamic", "yarn", "yarn-deepseek"])
@pytest.mark.parametrize("seq_len", [8, 16, 100, 1000])
def test_frequencies_and_attention_factor_match_transformers(scaling, seq_len):
    """rope_inv_freq at head_dim 64 equals transformers' _compute_{dynamic_ntk,yarn}_parameters (float32),
    for a sequence inside and beyond P; the attention factor too."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    params = dict(rope_theta=10000.0, **SCALINGS[scaling])
    config = transformers.LlamaConfig(hidden_size=256, num_attention_heads=4, head_dim=64, max_position_embeddings=P,
                                      rope_parameters=params)
    ref, factor = ROPE_INIT_FUNCTIONS[params["rope_type"]](config, "cpu", seq_len=torch.tensor(seq_len))
    _, cfg = config_from_hf(json.loads(config.to_json_string()))
    ours = np.asarray(rope_inv_freq(64, cfg.rope_theta, cfg.rope_scaling, seq_len=seq_len))
    np.testing.assert_allclose(ours, ref.numpy(), rtol=3e-7, atol=0)
    assert cfg.rope_scaling.attention_scale == pytest.approx(float(factor), rel=1e-12)
    plain = np.asarray(rope_inv_freq(64, 10000.0))
    if scaling == "dynamic":  # no change up to P, a larger base beyond
        assert np.array_equal(ours, plain) == (seq_len <= P)
    else:  # high frequencies kept, low ones divided by the factor, a ramp between
        assert ours[0] == plain[0] and np.isclose(ours[-1], plain[-1] / 4) and factor != 1.0


# ----------------------------------------------------------------------------- logits beyond the context
@pytest.fixture(scope="module", params=[(f, s) for f in FAMILIES for s in ("linear", "dynamic", "yarn")])
def saved(request, tmp_path_factory):
    family, scaling = request.param
    path = tmp_path_factory.mktemp(f"{family}_{scaling}")
    _hf_model(family, scaling).save_pretrained(path)
    cfg, model = load_hf(path)
    return family, scaling, path, cfg, model


def test_config_read(saved):
    family, scaling, _, cfg, _ = saved
    want = {"linear": RopeScaling(kind="linear", factor=3.0),
            "dynamic": RopeScaling(kind="dynamic", factor=3.0, original_max_positions=P),
            "yarn": RopeScaling(kind="yarn", factor=4.0, original_max_positions=P)}[scaling]
    assert cfg.rope_scaling == want and cfg.rope_theta == 100.0 and cfg.max_positions == P


@pytest.mark.parametrize("length", [LONG, pytest.param(12, marks=pytest.mark.extended)])
def test_logits_match_transformers_beyond_the_original_context(saved, length):
    """Same tokens -> the same logits within 1e-5 (a fresh transformers model per length: its dynamic
    kind keeps the frequencies of the longest sequence seen)."""
    family, scaling, _, _, model = saved
    tokens = np.random.default_rng(length).integers(0, V, size=length)
    ref = _logits(_hf_model(family, scaling), tokens)
    ours = np.asarray(model.lm(tokens.astype(np.int32)))
    assert np.abs(ref).max() > 1.0
    assert np.abs(ours - ref).max() < 1e-5  # measured <= 6.1e-6 at length 40 (|logits| <= 4.3), float32 rounding


@pytest.mark.extended
def test_the_scaling_matters(saved, tmp_path):
    """Negative control: the same weights with plain RoPE differ from transformers' scaled model by far more
    than 1e-5 beyond P (dynamic: only beyond P; it equals plain RoPE inside)."""
    family, scaling, path, cfg, model = saved
    tokens = np.random.default_rng(LONG).integers(0, V, size=LONG)
    ref = _logits(_hf_model(family, scaling), tokens)
    plain = Decoder(dataclasses.replace(cfg, rope_scaling=None), rngs=nnx.Rngs(0))
    nnx.update(plain, nnx.state(model))
    assert np.abs(np.asarray(plain.lm(tokens.astype(np.int32))) - ref).max() > 1e-2


def test_export_round_trip(saved, tmp_path):
    """save_hf writes the scaling into config.json; transformers' from_pretrained on the export gives the
    original model's logits beyond P, and load_hf reads the same config back."""
    family, scaling, _, cfg, model = saved
    save_hf(model, cfg, tmp_path)
    raw = json.loads((tmp_path / "config.json").read_text())
    assert raw["model_type"] == family and raw["rope_parameters"]["rope_type"] == scaling
    assert load_hf(tmp_path)[0] == cfg
    again = transformers.AutoModelForCausalLM.from_pretrained(tmp_path, attn_implementation="eager").eval()
    tokens = np.random.default_rng(7).integers(0, V, size=LONG)
    np.testing.assert_array_equal(_logits(again, tokens), _logits(_hf_model(family, scaling), tokens))


# ----------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("fields, match", [
    (dict(kind="ntk", factor=2.0), "use 'dynamic'"),
    (dict(kind="dynamic", factor=2.0), "original_max_positions is required"),
    (dict(kind="yarn", factor=2.0, original_max_positions=16, beta_fast=1.0, beta_slow=4.0), "beta_fast"),
    (dict(kind="linear", factor=2.0, beta_fast=8.0), "beta_fast is only used"),
    (dict(kind="dynamic", factor=2.0, original_max_positions=16, low_freq_factor=1.0), "low_freq_factor"),
    (dict(kind="yarn", factor=2.0, original_max_positions=16, attention_factor=0.0), "attention_factor"),
    # 0.1 m ln(s) + 1 = 0 for s = e, m = -10: the attention factor would divide by it (ZeroDivisionError once)
    (dict(kind="yarn", factor=math.e, original_max_positions=16, mscale=1.0, mscale_all_dim=-10.0),
     r"mscale_all_dim=-10.0 makes yarn's attention term .* = 0 "),
    (dict(kind="yarn", factor=math.e, original_max_positions=16, mscale=-20.0, mscale_all_dim=1.0),
     r"mscale=-20.0 .* = -1 "),
    (dict(kind="yarn", factor=2.0, original_max_positions=16, beta_fast=-1.0), "beta_fast=-1.0 must be >= 0"),
])
def test_bad_rope_scaling(fields, match):
    with pytest.raises(ValueError, match=match):
        RopeScaling(**fields)


def test_a_dynamic_scaling_that_transformers_cannot_express_is_not_exported(tmp_path):
    cfg = preset("toy", vocab_size=V, max_positions=P,
                 rope_scaling=RopeScaling(kind="dynamic", factor=2.0, original_max_positions=2 * P))
    with pytest.raises(ValueError, match="original_max_positions"):
        save_hf(Decoder(cfg, rngs=nnx.Rngs(0)), cfg, tmp_path)


def test_longrope_is_refused_by_name():
    raw = dict(model_type="llama", rope_parameters=dict(rope_type="longrope", rope_theta=1e4, factor=2.0), **SHAPE)
    with pytest.raises(ValueError, match="rope_type='longrope'"):
        config_from_hf(raw)


@pytest.mark.parametrize("scaling, fields, match", [
    (RopeScaling(kind="yarn", factor=2.0, original_max_positions=16), dict(rope_theta=1.0), "ln\\(rope_theta\\)"),
    (RopeScaling(kind="dynamic", factor=2.0, original_max_positions=16), dict(width=8, heads=4),
     "head_dim / \\(head_dim - 2\\)"),
])
def test_scaling_divisors_are_checked_with_the_model(scaling, fields, match):
    with pytest.raises(ValueError, match=match):
        preset("toy", vocab_size=V, max_positions=P, rope_scaling=scaling, **fields)


@pytest.mark.parametrize("params, match", [
    (dict(rope_type="yarn", factor=2.0, rope_theta=None), "rope_parameters rope_theta must be a number, got null"),
    (dict(rope_type="yarn", factor="2"), "rope_parameters factor must be a number"),
    (dict(rope_type="yarn", factor=math.e, mscale=1.0, mscale_all_dim=-10.0), "mscale_all_dim"),
])
def test_rope_keys_of_a_config_json_are_checked_where_read(params, match):
    raw = dict(model_type="llama", rope_parameters=params, **SHAPE)
    with pytest.raises(ValueError, match=match):
        config_from_hf(raw)
