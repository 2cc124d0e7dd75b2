"""Flax NNX decoder stacks and architecture presets.

    cfg = preset("qwen2-0.5b", depth=4)
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    y = model(x)                                     # x: [L, D] or [B, L, D]
    y, inter = forward_with_intermediates(model, x)  # per-layer norms, probs
    graphdef, state, fn = apply_fn(model)            # fn(state, x) -> y
"""

from .attention import Attention
from .block import Block
from .config import DecoderConfig
from .decoder import Decoder
from .functional import apply_fn, forward_with_intermediates, init_ensemble, param_count
from .masks import allowed_mask
from .positions import alibi_bias, alibi_slopes, rope
from .presets import PRESETS, preset

__all__ = [
    "Attention", "Block", "Decoder", "DecoderConfig", "PRESETS", "alibi_bias",
    "alibi_slopes", "allowed_mask", "apply_fn", "forward_with_intermediates",
    "init_ensemble", "param_count", "preset", "rope",
]
from .hf import load_hf, save_hf  # noqa: E402  (Hugging Face checkpoints)

__all__ += ["load_hf", "save_hf"]
