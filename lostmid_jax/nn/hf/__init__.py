"""Load and save Hugging Face checkpoints as our Decoder (no torch needed): one module per family.

    cfg, model = load_hf("path/to/gpt2")          # config.json + model.safetensors (or a cached hub id)
    y = model(x)                                   # x: [L, D] input embeddings
    save_hf(model, cfg, "out/dir")                 # config.json + model.safetensors

Families (config.json keys read, refused variants, tensor layout, each in one module):
gpt2, qwen2, llama, mistral, qwen3 (Llama-style, Qwen2's tensor names), bloom,
mpt (ALiBi, fused q/k/v). Shared: files (config.json and safetensors
reading/writing), checkpoint (load_hf / save_hf), families (the registry:
model_type / DecoderConfig -> family), keys (the allow-list: a config.json key
no family names is refused unless at transformers' default), common (helpers
the families share), hub (hub ids in the local cache, offline-first).
Importing the package or a config module loads no jax; load_hf / save_hf do.
"""

from __future__ import annotations

from ..._lazy import lazy_exports

_EXPORTS = {
    "hf_tensors": ".checkpoint",
    "load_hf": ".checkpoint",
    "save_hf": ".checkpoint",
    "FAMILIES": ".families",
    "config_from_hf": ".families",
    "config_to_hf": ".families",
    "family_of": ".families",
    "INDEX": ".files",
    "WEIGHTS": ".files",
    "read_config": ".files",
    "read_json_object": ".files",
    "read_tensors": ".files",
    "weights_file": ".files",
    "checkpoint_config": ".hub",
    "resolve_checkpoint": ".hub",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
