"""load_hf / save_hf against transformers' own GPT-2 and Qwen2 (tiny random models, no network):
nn/hf/gpt2.py and nn/hf/qwen2.py."""

import json

import jax
import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
safetensors_numpy = pytest.importorskip("safetensors.numpy")

from lostmid_jax.analysis import influence_profile  # noqa: E402

torch.set_num_threads(1)  # tiny models: torch's thread pool next to XLA's on 2 shared cores costs ~100x
from lostmid_jax.nn import DecoderConfig, load_hf, save_hf  # noqa: E402
from lostmid_jax.nn.hf.files import read_tensors  # noqa: E402

from hf_helpers import base_model, save_tiny  # noqa: E402

FAMILIES = ("gpt2", "qwen2", "qwen2-tied")
L = 12


@pytest.fixture(scope="module", params=FAMILIES)
def saved(request, tmp_path_factory):
    path = tmp_path_factory.mktemp(request.param)
    return request.param, path, save_tiny(request.param, path)


def _x(width, seed=0):
    return np.random.default_rng(seed).normal(size=(L, width)).astype(np.float32)


def test_config_read(saved):
    name, path, hf = saved
    cfg, model = load_hf(path)
    assert isinstance(cfg, DecoderConfig) and model.cfg == cfg
    assert (cfg.depth, cfg.width, cfg.heads, cfg.vocab_size) == (2, 32, 4, 64)
    if name == "gpt2":
        assert cfg.position == "learned" and cfg.max_positions == 64 and cfg.tie_embeddings
    else:
        assert cfg.position == "rope" and cfg.kv_heads == hf.config.num_key_value_heads < cfg.heads
        assert cfg.tie_embeddings == (name == "qwen2-tied") and cfg.mlp_width == 48
    if name == "qwen2":
        assert cfg.rope_theta == 1000.0


def test_hidden_states_match_transformers(saved):
    """Same input embeddings -> same last_hidden_state (GPT-2 adds wpe inside both stacks)."""
    _, path, hf = saved
    _, model = load_hf(path)
    x = _x(32)
    with torch.no_grad():
        ref = base_model(hf)(inputs_embeds=torch.from_numpy(x)[None]).last_hidden_state[0].numpy()
    y = np.asarray(model(x))
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, ref, atol=1e-4, rtol=0)
    assert np.abs(y - ref).max() < 1e-5  # measured ~3e-7


def test_logits_match_transformers(saved):
    _, path, hf = saved
    _, model = load_hf(path)
    tokens = np.random.default_rng(1).integers(0, 64, size=L)
    with torch.no_grad():
        ref = hf(input_ids=torch.from_numpy(tokens)[None]).logits[0].numpy()
    np.testing.assert_allclose(np.asarray(model.lm(tokens.astype(np.int32))), ref, atol=1e-4, rtol=0)


def test_influence_profile_matches_torch_autograd(saved):
    """||d y_L / d x_j||_F by our Jacobian engine vs torch.autograd.functional.jacobian on the HF model."""
    name, path, hf = saved
    if name == "qwen2-tied":
        pytest.skip("same stack as qwen2")
    _, model = load_hf(path)
    x = _x(32, seed=2)
    last = lambda e: base_model(hf)(inputs_embeds=e[None]).last_hidden_state[0, -1]  # noqa: E731
    jac = torch.autograd.functional.jacobian(last, torch.from_numpy(x), vectorize=True)  # [D, L, D]
    ref = np.sqrt((jac.numpy().astype(np.float64) ** 2).sum(axis=(0, 2)))  # [L]
    ours = influence_profile(model, x, method="exact").norms
    np.testing.assert_allclose(ours, ref, rtol=1e-4, atol=1e-7)


def test_export_round_trip_is_bit_exact(saved, tmp_path):
    _, path, _ = saved
    cfg, model = load_hf(path)
    save_hf(model, cfg, tmp_path / "out")
    original, exported = read_tensors(path), read_tensors(tmp_path / "out")
    assert set(exported) == set(original)
    for name, value in original.items():
        assert exported[name].dtype == value.dtype and np.array_equal(exported[name], value), name
    cfg2, model2 = load_hf(tmp_path / "out")
    assert cfg2 == cfg
    a, b = jax.tree.leaves(model), jax.tree.leaves(model2)
    assert all(np.array_equal(np.asarray(u), np.asarray(v)) for u, v in zip(a, b, strict=True))


def test_transformers_reads_the_export(saved, tmp_path):
    _, path, hf = saved
    cfg, model = load_hf(path)
    save_hf(model, cfg, tmp_path)
    again = transformers.AutoModelForCausalLM.from_pretrained(tmp_path, attn_implementation="eager").eval()
    ids = torch.arange(L)[None] % 64
    with torch.no_grad():
        np.testing.assert_array_equal(again(input_ids=ids).logits.numpy(), hf(input_ids=ids).logits.numpy())


def test_bfloat16_export_round_trips(tmp_path):
    save_tiny("qwen2", tmp_path / "f32")
    cfg, model = load_hf(tmp_path / "f32")
    save_hf(model, cfg, tmp_path / "bf16", dtype="bfloat16")
    assert json.loads((tmp_path / "bf16" / "config.json").read_text())["torch_dtype"] == "bfloat16"
    _, model16 = load_hf(tmp_path / "bf16")  # bfloat16 values held exactly in float32
    save_hf(model16, model16.cfg, tmp_path / "bf16b", dtype="bfloat16")
    a, b = read_tensors(tmp_path / "bf16"), read_tensors(tmp_path / "bf16b")
    assert all(a[k].dtype.name == "bfloat16" and np.array_equal(a[k], b[k]) for k in a)
