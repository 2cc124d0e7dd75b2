"""load_hf / save_hf: a Hugging Face checkpoint directory <-> our Decoder.

Tensor names and layouts come from the family's module (nn/hf/families.py),
files are read and written by nn/hf/files.py. GPT-2's learned positions wpe
are added to the input embeddings inside our stack, exactly as GPT2Model
does with ``inputs_embeds``, so ``model(x)`` equals HF ``last_hidden_state``
for the same x.

Checks (ValueError naming the tensor): every expected tensor present, no
unexpected ones (mask / RoPE buffers are ignored), shapes equal; a tied
checkpoint may carry an "lm_head.weight" only if it equals the embedding.
"""

from __future__ import annotations

import pathlib

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from ..config import DecoderConfig
from ..decoder import Decoder
from . import families
from .files import read_config, read_tensors, write_checkpoint


def flat_params(state) -> dict:
    """{path tuple: leaf} from an nnx State (paths without the Variable's '.value')."""
    out = {}
    for path, leaf in jax.tree_util.tree_flatten_with_path(state)[0]:
        out[tuple(k.key for k in path if isinstance(k, jax.tree_util.DictKey))] = leaf
    return out


def _check(tensors: dict, expected: dict, cfg: DecoderConfig, family: str) -> dict:
    """Drop ignorable buffers and a redundant tied lm_head; raise on missing/extra/misshaped tensors."""
    tensors = {k: v for k, v in tensors.items() if not k.endswith(families.IGNORED_SUFFIXES)}
    if cfg.tie_embeddings and "lm_head.weight" in tensors:
        embeddings = ("wte.weight", "embed_tokens.weight", "word_embeddings.weight")
        wte = next(n for n in expected if n.endswith(embeddings))
        if wte in tensors and not np.array_equal(tensors["lm_head.weight"], tensors[wte]):
            raise ValueError(f"tensor 'lm_head.weight' differs from {wte!r} but tie_word_embeddings is true")
        tensors.pop("lm_head.weight")
    for name in sorted(expected):
        if name not in tensors:
            raise ValueError(f"tensor {name!r} is missing from the {family} checkpoint")
        if tuple(tensors[name].shape) != tuple(expected[name].shape):
            raise ValueError(f"tensor {name!r} has shape {list(tensors[name].shape)}, "
                             f"expected {list(expected[name].shape)} from config.json")
    extra = sorted(set(tensors) - set(expected))
    if extra:
        raise ValueError(f"tensor {extra[0]!r} is not part of a {family} model"
                         + (f" (and {len(extra) - 1} more)" if len(extra) > 1 else ""))
    return tensors


def _with_prefix(tensors: dict, family: str) -> dict:
    """Bare-model checkpoints (GPT2Model, Qwen2Model, the hub's "gpt2") lack the
    causal-LM prefix ("transformer." / "model."): add it to every non-lm_head name."""
    pre = families.PREFIX[family]
    if any(k.startswith(pre) for k in tensors):
        return tensors
    return {k if k.startswith("lm_head.") else pre + k: v for k, v in tensors.items()}


def _abstract_params(cfg: DecoderConfig):
    graphdef, state = nnx.split(nnx.eval_shape(lambda: Decoder(cfg, rngs=nnx.Rngs(0))))
    return graphdef, state, flat_params(state)


def load_hf(path: str | pathlib.Path, *, param_dtype: str = "float32",
            hf_config: dict | None = None) -> tuple[DecoderConfig, Decoder]:
    """Load a local Hugging Face checkpoint directory (or a cached hub id) into our Decoder.

    Args:
      path: directory with config.json and model.safetensors (or a sharded
        model.safetensors.index.json), or a hub id in the local cache.
      param_dtype: dtype of the loaded parameters (the stored tensors are
        cast; float32 holds float16 / bfloat16 checkpoints exactly).
      hf_config: the directory's config.json already parsed (nn.hf.hub.read_checkpoint), else it is read here.

    Returns:
      (cfg, model): the DecoderConfig read from config.json and a Decoder
      holding the checkpoint's weights.

    Raises:
      FileNotFoundError: the directory, config.json or the weights are missing.
      ValueError: a config.json or index that is not a JSON object; an empty,
        truncated or unreadable weights file, or one with NaN / inf values
        (named); unsupported model_type / variant; a missing, extra or
        misshaped tensor (named).
    """
    from .hub import resolve_checkpoint  # a directory, or a hub id in the local cache (offline)
    path = resolve_checkpoint(path)
    raw = read_config(path) if hf_config is None else hf_config
    family, cfg = families.config_from_hf(raw, param_dtype=param_dtype)
    cfg.check_size()  # before any tensor is read or any layer built
    graphdef, state, abstract = _abstract_params(cfg)
    expected = jax.eval_shape(lambda p: families.to_hf(family, p, cfg.depth, jnp, heads=cfg.heads), abstract)
    tensors = _check(_with_prefix(read_tensors(path), family), expected, cfg, family)
    ours = families.from_hf(family, tensors, abstract, cfg.depth, np, heads=cfg.heads)

    def fill(key_path, leaf):
        key = tuple(k.key for k in key_path if isinstance(k, jax.tree_util.DictKey))
        return jnp.asarray(np.asarray(ours[key]).astype(leaf.dtype))

    state = jax.tree_util.tree_map_with_path(fill, state)
    return cfg, nnx.merge(graphdef, state)


def hf_tensors(model: Decoder, cfg: DecoderConfig, *, dtype: str | None = None) -> tuple[str, dict]:
    """(family, {HF tensor name: numpy array}) for ``model``, named as the family's causal-LM class names them."""
    family, _ = families.config_to_hf(cfg, dtype=dtype or cfg.param_dtype)
    params = {k: np.asarray(v) for k, v in flat_params(nnx.state(model, nnx.Param)).items()}
    tensors = families.to_hf(family, params, cfg.depth, np, heads=cfg.heads)
    cast = (lambda a: a) if dtype is None else (lambda a: a.astype(jnp.dtype(dtype)))
    return family, {k: np.ascontiguousarray(cast(v)) for k, v in tensors.items()}


def save_hf(model: Decoder, cfg: DecoderConfig, path: str | pathlib.Path, *,
            dtype: str | None = None) -> pathlib.Path:
    """Write ``model`` as a Hugging Face checkpoint: config.json + model.safetensors.

    Args:
      model: a Decoder whose architecture is ``cfg``.
      cfg: a DecoderConfig of one of families.FAMILIES (vocab_size set; a
        config matching several is written as the first, see families.family_of).
      path: output directory (created).
      dtype: tensor dtype name (e.g. "bfloat16"); None keeps the parameters'.

    Returns:
      The directory. transformers' AutoModelForCausalLM.from_pretrained reads it.

    Raises:
      ValueError: ``cfg`` matches no family, or ``model`` is not ``cfg``'s.
    """
    if model.cfg != cfg:
        raise ValueError("cfg must be the model's own DecoderConfig (model.cfg)")
    family, tensors = hf_tensors(model, cfg, dtype=dtype)
    _, raw = families.config_to_hf(cfg, dtype=dtype or cfg.param_dtype)
    return write_checkpoint(path, tensors, raw)
