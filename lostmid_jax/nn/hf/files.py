"""Reading and writing a checkpoint directory: config.json and safetensors weights (no torch needed).

A directory holds config.json and either model.safetensors or a sharded
model.safetensors.index.json ({"weight_map": {tensor: file}}).
A missing directory or config.json raises FileNotFoundError naming the path;
a config.json or index that is not a JSON object, an empty, truncated or
unreadable weights file, weights with NaN / inf, a tensor that is not a
floating-point number (int32, bool, uint8, complex64: casting them to float
would change or drop values) and a shard outside the checkpoint directory
raise ValueError naming the file.
"""

from __future__ import annotations

import json
import os
import pathlib

import numpy as np

from ...untrusted import check_inside, read_json_object  # read_json_object: re-exported (nn.hf, hf_config)

WEIGHTS = "model.safetensors"
INDEX = "model.safetensors.index.json"


def checkpoint_root(directory) -> pathlib.Path:
    """The folder a checkpoint's files may link within: the (resolved) directory itself, or for a snapshot of
    the Hugging Face hub cache (``.../models--org--name/snapshots/<commit>``) the repo folder
    ``models--org--name``, whose blobs/ hold the files the snapshot links to (``../../blobs/<hash>``)."""
    directory = pathlib.Path(directory).resolve()
    if directory.parent.name == "snapshots" and directory.parent.parent.name.startswith("models--"):
        return directory.parent.parent
    return directory


def checkpoint_file(directory, name: str) -> pathlib.Path | None:
    """``directory``/``name`` if it is a regular file, or a symlink to one inside :func:`checkpoint_root`; None
    when there is no such entry. ValueError naming the entry for a symlink that leaves the checkpoint (or
    its hub cache repo folder), dangles, or something other than a regular file."""
    path = pathlib.Path(directory) / name
    if not os.path.lexists(path):
        return None
    return check_inside(checkpoint_root(directory), path, "checkpoint directory")


def read_config(path: str | pathlib.Path) -> dict:
    """The parsed config.json of checkpoint directory ``path`` (FileNotFoundError / ValueError naming it)."""
    path = pathlib.Path(path)
    if not path.is_dir():
        raise FileNotFoundError(f"path {str(path)!r} is not a directory")
    config = checkpoint_file(path, "config.json")
    if config is None:
        raise FileNotFoundError(f"path {str(path)!r} has no config.json")
    return read_json_object(config, "config")


def weights_file(path: str | pathlib.Path) -> pathlib.Path:
    """The weights of checkpoint directory ``path``: model.safetensors or the sharded index
    (FileNotFoundError naming the directory when neither is there; ValueError for a link out of it)."""
    path = pathlib.Path(path)
    for name in (WEIGHTS, INDEX):
        file = checkpoint_file(path, name)
        if file is not None:
            return file
    raise FileNotFoundError(f"path {str(path)!r} has neither {WEIGHTS} nor {INDEX}")


def safetensors_numpy():
    """safetensors.numpy, imported on first use (a base dependency; imported late to keep start-up short)."""
    try:
        from safetensors import numpy as st
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("Hugging Face checkpoints need the safetensors package, a base dependency: "
                          "reinstall with pip install -e .") from err
    return st


def _is_float(dtype) -> bool:
    """float16/32/64 and the ml_dtypes floats (bfloat16, float8_*), which numpy does not class as floating."""
    return np.issubdtype(dtype, np.floating) or (dtype.kind == "V" and dtype.name.startswith(("bfloat", "float")))


def shard_path(directory: pathlib.Path, shard) -> pathlib.Path:
    """The shard file an index names, if it is a plain relative name that stays inside ``directory``
    (ValueError naming the index entry otherwise: an absolute path, .., or a symlink out of
    :func:`checkpoint_root`)."""
    parts = pathlib.PurePosixPath(shard).parts if isinstance(shard, str) else ()
    if not shard or not parts or pathlib.PurePosixPath(shard).is_absolute() or ".." in parts:
        raise ValueError(f"index {str(directory / INDEX)!r} names the shard {shard!r}, not a file name inside "
                         "the checkpoint directory")
    if not os.path.lexists(directory / shard):
        raise FileNotFoundError(f"weights file {str(directory / shard)!r} does not exist")
    return check_inside(checkpoint_root(directory), directory / shard, "checkpoint directory")


def load_file(file: pathlib.Path) -> dict[str, np.ndarray]:
    """The tensors of one safetensors file; FileNotFoundError / ValueError naming the file when it is
    missing, empty, truncated or unreadable, or holds a non-finite value."""
    if not file.is_file():
        raise FileNotFoundError(f"weights file {str(file)!r} does not exist")
    if file.stat().st_size == 0:
        raise ValueError(f"weights file {str(file)!r} is empty")
    try:
        tensors = safetensors_numpy().load_file(file)
    except Exception as err:  # safetensors raises its own SafetensorError for damaged headers and data
        raise ValueError(f"weights file {str(file)!r} is truncated or not a safetensors file "
                         f"({type(err).__name__}: {str(err)[:200]})") from None
    for name, value in tensors.items():
        if not _is_float(value.dtype):
            raise ValueError(f"weights file {str(file)!r}: tensor {name!r} has dtype {value.dtype}, not a "
                             "floating-point type (weights are float16, bfloat16, float32 or float64)")
        if not np.all(np.isfinite(value)):
            raise ValueError(f"weights file {str(file)!r}: tensor {name!r} holds NaN or inf values")
    return tensors


def read_tensors(path: str | pathlib.Path) -> dict[str, np.ndarray]:
    """All tensors of a checkpoint directory (single file or sharded index), as numpy arrays."""
    path = pathlib.Path(path)
    file = weights_file(path)
    if file.name == WEIGHTS:
        return load_file(file)
    if file.name == INDEX:
        weight_map = read_json_object(file, "index").get("weight_map")
        if not isinstance(weight_map, dict):
            raise ValueError(f"index {str(path / INDEX)!r} has no \"weight_map\" object")
        tensors = {}
        shards = sorted({shard_path(path, shard) for shard in weight_map.values()})
        for shard in shards:
            tensors.update(load_file(shard))
        missing = sorted(set(weight_map) - set(tensors))
        if missing:
            raise ValueError(f"tensor {missing[0]!r} is listed in {INDEX} but not in its shard")
        return tensors
    raise FileNotFoundError(f"path {str(path)!r} has neither {WEIGHTS} nor {INDEX}")


def write_checkpoint(path: str | pathlib.Path, tensors: dict[str, np.ndarray], raw: dict) -> pathlib.Path:
    """Write ``tensors`` to model.safetensors and ``raw`` to config.json in directory ``path`` (created)."""
    path = pathlib.Path(path)
    path.mkdir(parents=True, exist_ok=True)
    safetensors_numpy().save_file(tensors, path / WEIGHTS, metadata={"format": "pt"})
    (path / "config.json").write_text(json.dumps(raw, indent=2) + "\n")
    return path
