"""load_hf / save_hf against transformers' own GPT-2 and Qwen2 (tiny random models, no network)."""

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
from lostmid_jax.nn.hf import read_tensors  # noqa: E402

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


def test_sharded_checkpoint(tmp_path):
    hf = save_tiny("gpt2", tmp_path, max_shard_size="20KB")
    assert (tmp_path / "model.safetensors.index.json").is_file() and not (tmp_path / "model.safetensors").exists()
    _, model = load_hf(tmp_path)
    x = _x(32)
    with torch.no_grad():
        ref = hf.transformer(inputs_embeds=torch.from_numpy(x)[None]).last_hidden_state[0].numpy()
    np.testing.assert_allclose(np.asarray(model(x)), ref, atol=1e-4, rtol=0)


def test_bare_model_names_without_prefix(tmp_path):
    """GPT2Model checkpoints (and the hub's "gpt2") have no "transformer." prefix."""
    hf = save_tiny("gpt2", tmp_path / "lm")
    hf.transformer.save_pretrained(tmp_path / "bare")
    _, a = load_hf(tmp_path / "lm")
    _, b = load_hf(tmp_path / "bare")
    assert all(np.array_equal(np.asarray(u), np.asarray(v)) for u, v in zip(jax.tree.leaves(a), jax.tree.leaves(b)))


# ----------------------------------------------------------------------------- errors
@pytest.fixture
def gpt2_dir(tmp_path):
    save_tiny("gpt2", tmp_path)
    return tmp_path


def test_missing_directory(tmp_path):
    missing = tmp_path / "nowhere"
    with pytest.raises(FileNotFoundError, match="nowhere"):
        load_hf(missing)


def test_missing_weights(gpt2_dir):
    (gpt2_dir / "model.safetensors").unlink()
    with pytest.raises(FileNotFoundError, match="model.safetensors"):
        load_hf(gpt2_dir)


@pytest.mark.parametrize("key, value, match", [
    ("model_type", "llama", "llama"),                            # unsupported architecture
    ("activation_function", "relu", "activation_function"),      # unsupported variant
    ("n_positions", 32, r"transformer\.wpe\.weight"),            # config vs tensor size
])
def test_bad_config(gpt2_dir, key, value, match):
    raw = json.loads((gpt2_dir / "config.json").read_text())
    raw[key] = value
    (gpt2_dir / "config.json").write_text(json.dumps(raw))
    with pytest.raises(ValueError, match=match):
        load_hf(gpt2_dir)


def _drop(t):
    t.pop("transformer.h.1.mlp.c_fc.bias")


def _reshape(t):
    t["transformer.h.0.attn.c_attn.weight"] = np.zeros((32, 64), np.float32)


def _add(t):
    t["transformer.h.2.ln_1.weight"] = np.ones(32, np.float32)


@pytest.mark.parametrize("edit, match", [
    (_drop, r"transformer\.h\.1\.mlp\.c_fc\.bias.*missing"),
    (_reshape, r"transformer\.h\.0\.attn\.c_attn\.weight.*\[32, 64\].*\[32, 96\]"),
    (_add, r"transformer\.h\.2\.ln_1\.weight.*not part"),
])
def test_bad_tensors(gpt2_dir, edit, match):
    """A missing tensor, a shape mismatch and an extra tensor, each named."""
    tensors = safetensors_numpy.load_file(gpt2_dir / "model.safetensors")
    edit(tensors)
    safetensors_numpy.save_file(tensors, gpt2_dir / "model.safetensors", metadata={"format": "pt"})
    with pytest.raises(ValueError, match=match):
        load_hf(gpt2_dir)


def test_save_refuses_other_architectures(tmp_path):
    from flax import nnx

    from lostmid_jax.nn import Decoder, preset

    cfg = preset("toy", position="alibi")
    with pytest.raises(ValueError, match="position"):
        save_hf(nnx.eval_shape(lambda: Decoder(cfg, rngs=nnx.Rngs(0))), cfg, tmp_path)
