"""load_hf / save_hf on any checkpoint directory (nn/hf/checkpoint.py): sharded weights, bare-model
names, missing / extra / misshaped tensors named, refused configs (tiny random GPT-2, no network)."""

import json

import jax
import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
safetensors_numpy = pytest.importorskip("safetensors.numpy")

torch.set_num_threads(1)  # tiny models: torch's thread pool next to XLA's on 2 shared cores costs ~100x
from lostmid_jax.nn import load_hf, save_hf  # noqa: E402

from hf_helpers import save_tiny  # noqa: E402

L = 12


def _x(width, seed=0):
    return np.random.default_rng(seed).normal(size=(L, width)).astype(np.float32)


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
