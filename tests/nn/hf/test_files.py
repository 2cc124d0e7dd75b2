"""Damaged Hugging Face checkpoints (nn/hf/files.py) give an error naming the file and what is wrong, never a
traceback from inside."""

import json
import shutil

import numpy as np
import pytest
from flax import nnx

pytest.importorskip("safetensors")

from lostmid_jax import cli  # noqa: E402
from lostmid_jax.nn import Decoder, load_hf, preset, save_hf  # noqa: E402


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    cfg = preset("gpt2-small", depth=1, width=16, heads=2, vocab_size=32, max_positions=16)
    path = tmp_path_factory.mktemp("good")
    save_hf(Decoder(cfg, rngs=nnx.Rngs(0)), cfg, path)
    return path


@pytest.fixture
def copy(good, tmp_path):
    target = tmp_path / "ckpt"
    shutil.copytree(good, target)
    return target


def test_good_checkpoint_loads(good):
    cfg, model = load_hf(good)
    assert cfg.depth == 1 and np.all(np.isfinite(np.asarray(model.wte[...])))


@pytest.mark.parametrize("text,message", [("[1, 2]", "JSON object"), ("{not json", "not valid JSON")])
def test_config_that_is_not_an_object(copy, text, message):
    (copy / "config.json").write_text(text)
    with pytest.raises(ValueError, match=message) as err:
        load_hf(copy)
    assert "config.json" in str(err.value)


def test_missing_weights(copy):
    (copy / "model.safetensors").unlink()
    with pytest.raises(FileNotFoundError, match="model.safetensors"):
        load_hf(copy)


def test_empty_weights(copy):
    (copy / "model.safetensors").write_bytes(b"")
    with pytest.raises(ValueError, match="model.safetensors.*empty"):
        load_hf(copy)


@pytest.mark.parametrize("keep", [0.5, 0.02])
def test_truncated_weights(copy, keep):
    data = (copy / "model.safetensors").read_bytes()
    (copy / "model.safetensors").write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(ValueError, match="model.safetensors.*truncated"):
        load_hf(copy)


def test_non_finite_weights_are_refused(copy):
    from safetensors.numpy import load_file, save_file

    tensors = load_file(copy / "model.safetensors")
    name = sorted(tensors)[0]
    tensors[name] = tensors[name].copy()
    tensors[name].flat[0] = np.nan
    save_file(tensors, copy / "model.safetensors")
    with pytest.raises(ValueError, match=f"{name}.*NaN"):
        load_hf(copy)


def test_sharded_index_that_is_not_an_object(copy):
    (copy / "model.safetensors").rename(copy / "shard-1.safetensors")
    (copy / "model.safetensors.index.json").write_text(json.dumps(["shard-1.safetensors"]))
    with pytest.raises(ValueError, match="index.*JSON object"):
        load_hf(copy)


@pytest.mark.parametrize("damage", ["list_config", "no_weights"])
def test_compare_refuses_before_creating_its_run_directory(copy, tmp_path, capsys, damage):
    if damage == "list_config":
        (copy / "config.json").write_text("[]")
    else:
        (copy / "model.safetensors").unlink()
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exc:
        cli.main(["compare", "--weights", str(copy), "--smoke", "--out", str(out)])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "weights" in err and "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize("dtype", ["int32", "bool", "uint8", "complex64"])
def test_non_float_tensors_are_refused(copy, dtype):
    """Before: cast to float (a complex tensor lost its imaginary part)."""
    from safetensors.numpy import load_file, save_file

    tensors = load_file(copy / "model.safetensors")
    name = sorted(tensors)[0]
    tensors[name] = tensors[name].astype(dtype)
    save_file(tensors, copy / "model.safetensors")
    with pytest.raises(ValueError, match=f"tensor {name!r} has dtype {dtype}, not a floating-point type"):
        load_hf(copy)


def test_float16_tensors_load(copy):
    from safetensors.numpy import load_file, save_file

    tensors = load_file(copy / "model.safetensors")
    save_file({k: v.astype("float16") for k, v in tensors.items()}, copy / "model.safetensors")
    load_hf(copy)


@pytest.mark.parametrize("shard", ["../outside.safetensors", "/tmp/x.safetensors", "link.safetensors"])
def test_shards_must_stay_inside_their_checkpoint_directory(copy, tmp_path, shard):
    """Before: an index naming ../outside.safetensors (or a link out) was loaded."""
    from safetensors.numpy import load_file

    names = sorted(load_file(copy / "model.safetensors"))
    outside = tmp_path / "outside.safetensors"
    (copy / "model.safetensors").rename(outside)
    (copy / "link.safetensors").symlink_to(outside)
    (copy / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {n: shard for n in names}}))
    with pytest.raises(ValueError, match="outside the checkpoint directory|not a file name inside"):
        load_hf(copy)


def test_a_shard_inside_the_directory_loads(copy):
    from safetensors.numpy import load_file

    names = sorted(load_file(copy / "model.safetensors"))
    (copy / "model.safetensors").rename(copy / "model-00001-of-00001.safetensors")
    (copy / "model.safetensors.index.json").write_text(json.dumps(
        {"weight_map": {n: "model-00001-of-00001.safetensors" for n in names}}))
    assert load_hf(copy)[0].depth == 1


@pytest.mark.parametrize("key,value,message", [
    ("tie_word_embeddings", "false", "must be true or false"),
    ("tie_word_embeddings", 0, "must be true or false"),
    ("layer_norm_epsilon", [1e-5], "must be a number"),
    ("layer_norm_epsilon", True, "must be a number"),
    ("n_layer", 1.5, "must be an integer"),
    ("n_embd", "16", "must be an integer"),
])
def test_config_json_values_are_type_checked(copy, key, value, message):
    """Before: "false" read as true (bool of a non-empty string); a list epsilon gave a traceback."""
    raw = json.loads((copy / "config.json").read_text())
    raw[key] = value
    (copy / "config.json").write_text(json.dumps(raw))
    with pytest.raises(ValueError, match=f"config.json {key} {message}"):
        load_hf(copy)


def test_a_bad_config_json_value_is_one_line_from_compare(copy, tmp_path, capsys):
    raw = json.loads((copy / "config.json").read_text())
    raw["layer_norm_epsilon"] = [1e-5]
    (copy / "config.json").write_text(json.dumps(raw))
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exc:
        cli.main(["compare", "--weights", str(copy), "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "layer_norm_epsilon must be a number" in err and "Traceback" not in err
    assert not out.exists()
