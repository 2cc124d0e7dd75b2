"""Checkpoints offline-first: a local directory, or a Hugging Face hub id found in the local cache.

    resolve_checkpoint("path/to/gpt2")                    # an existing directory: returned as is
    resolve_checkpoint("openai-community/gpt2")           # the cached snapshot; never the network
    resolve_checkpoint("gpt2", allow_download=True)       # fetches config.json + safetensors if not cached

A hub id is looked up with huggingface_hub's ``snapshot_download`` in its
cache (``HF_HUB_CACHE``, default ~/.cache/huggingface/hub) with
``local_files_only=True`` unless downloads are allowed; then only config.json
and the safetensors weights (single file or sharded index) are fetched.
Fetch one ahead of time with ``hf download ID`` (``huggingface-cli download
ID`` with huggingface_hub < 1.0).
"""

from __future__ import annotations

import os
import pathlib

WEIGHT_PATTERNS = ("config.json", "model.safetensors", "model.safetensors.index.json", "model-*.safetensors")


def resolve_checkpoint(path_or_id: str | os.PathLike, *, allow_download: bool = False,
                       cache_dir: str | os.PathLike | None = None) -> pathlib.Path:
    """The local directory of a checkpoint given as a directory or a hub id.

    Args:
      path_or_id: an existing directory (returned unchanged), or a hub id
        ("name" or "owner/name", optionally "owner/name@revision").
      allow_download: fetch a hub id that is not cached (config.json and the
        safetensors weights only); False (default): never touch the network.
      cache_dir: the huggingface_hub cache (default: its ``HF_HUB_CACHE``).

    Returns:
      The directory (for a hub id: the cached snapshot, ``.../snapshots/<commit>``).

    Raises:
      FileNotFoundError: ``path_or_id`` is neither a directory nor a valid hub
        id, or the id is not cached and downloads are not allowed (the message
        says how to fetch it), or the download failed.
    """
    text = os.fspath(path_or_id)
    if not isinstance(text, str) or not text.strip():
        raise FileNotFoundError(f"path {path_or_id!r} must name a checkpoint directory or a hub id")
    path = pathlib.Path(text).expanduser()
    if path.is_dir():
        return path
    if path.exists():
        raise FileNotFoundError(f"path {text!r} is a file, not a checkpoint directory")
    repo_id, _, revision = text.partition("@")
    try:
        import huggingface_hub
        from huggingface_hub import constants, errors
        from huggingface_hub.utils import HFValidationError, validate_repo_id
    except ImportError:
        raise FileNotFoundError(f"path {text!r} is not a directory (hub ids need huggingface_hub, "
                                "a base dependency: reinstall with pip install -e .)") from None
    try:
        validate_repo_id(repo_id)
    except HFValidationError:
        raise FileNotFoundError(f"path {text!r} is not a directory (nor a hub id like 'owner/name')") from None
    cache = os.fspath(cache_dir) if cache_dir is not None else constants.HF_HUB_CACHE
    fetch = f"`hf download {repo_id}` (`huggingface-cli download {repo_id}` with older huggingface_hub)"
    try:
        got = huggingface_hub.snapshot_download(repo_id, revision=revision or None, cache_dir=cache,
                                                local_files_only=not allow_download,
                                                allow_patterns=list(WEIGHT_PATTERNS))
    except errors.LocalEntryNotFoundError:
        if allow_download:
            raise FileNotFoundError(f"path {text!r} is not a directory, and downloading hub id {repo_id!r} "
                                    f"failed (offline, or HF_HUB_OFFLINE is set); fetch it with {fetch} where the hub "
                                    "is reachable") from None
        raise FileNotFoundError(f"path {text!r} is not a directory, and hub id {repo_id!r} is not in the local "
                                f"Hugging Face cache {cache}; fetch it with {fetch}, or allow downloads "
                                "(--allow-download; allow_download=True in Python)") from None
    except Exception as err:  # huggingface_hub raises HTTP errors of several types (not found, gated, ...)
        raise FileNotFoundError(f"hub id {repo_id!r} could not be downloaded ({type(err).__name__}: "
                                f"{str(err)[:200]})") from None
    return pathlib.Path(got)


def checkpoint_config(weights: str | os.PathLike, *, allow_download: bool = False, name: str = "weights"):
    """(directory, DecoderConfig) of a checkpoint: :func:`read_checkpoint` without the parsed config.json."""
    path, _, cfg = read_checkpoint(weights, allow_download=allow_download, name=name)
    return path, cfg


def read_checkpoint(weights: str | os.PathLike, *, allow_download: bool = False, name: str = "weights"):
    """(directory, parsed config.json, DecoderConfig) of a checkpoint: :func:`resolve_checkpoint`, then its
    config.json read once by the family registry, with its weights file present (``load_hf(path,
    hf_config=...)`` reuses the parsed config.json).

    Raises:
      ValueError: naming ``name``, when the directory or hub id cannot be resolved (the message says how to
        fetch an uncached id), or its config.json or weights are missing, unreadable or refused.
    """
    from .families import config_from_hf
    from .files import read_config, weights_file

    try:
        path = resolve_checkpoint(weights, allow_download=allow_download)
        raw = read_config(path)
        weights_file(path)
        return path, raw, config_from_hf(raw)[1]
    except (FileNotFoundError, ValueError) as err:
        raise ValueError(f"{name}: {err}") from None
