"""Flax NNX decoder stacks, architecture presets and Hugging Face import/export.

Shapes: L positions, D width, H depth (layers), N query heads, G kv heads, Dh head dim.

    cfg = preset("qwen2-0.5b", depth=4)              # DecoderConfig: architecture only
    model = Decoder(cfg, rngs=nnx.Rngs(0))
    y = model(x)                                     # x: [L, D] or [B, L, D]
    y = model(x, execution=Execution(remat=False))   # how it runs: chosen per call
    y = model(x, freeze_probs=True)                  # value pathway: probabilities held fixed
    y, inter = forward_with_intermediates(model, x, capture=Capture(probs=True))  # inter.resid_norm [H, L]
    graphdef, state, fn = apply_fn(model)            # fn(state, x) -> y
    mask = MaskSpec.from_config(cfg)                 # the mask rule shared by every attention route

The fused C++ attention kernel lives in lostmid_jax.kernels.fused_cpu and is
imported and compiled only by a call with Execution(attn_impl="fused_cpu").
"""

from __future__ import annotations

from .._lazy import lazy_exports

_EXPORTS = {
    "Attention": ".attention",
    "Block": ".block",
    "Capture": ".capture",
    "Intermediates": ".capture",
    "DecoderConfig": ".config",
    "Decoder": ".decoder",
    "ATTN_IMPLS": ".execution",
    "Execution": ".execution",
    "fused_cpu_problems": ".execution",
    "apply_fn": ".functional",
    "forward_with_intermediates": ".functional",
    "init_ensemble": ".functional",
    "param_count": ".functional",
    "MASK_KINDS": "..masks.spec",
    "MaskSpec": "..masks.spec",
    "allowed_mask": ".masks",
    "alibi_bias": ".positions",
    "alibi_slopes": ".positions",
    "rope": ".positions",
    "RopeScaling": ".rope_scaling",
    "PRESETS": ".presets",
    "preset": ".presets",
    "load_hf": ".hf",
    "save_hf": ".hf",
}
_SUBMODULES = ()

__all__ = [
    "ATTN_IMPLS",
    "Attention",
    "Block",
    "Capture",
    "Decoder",
    "DecoderConfig",
    "Execution",
    "Intermediates",
    "MASK_KINDS",
    "MaskSpec",
    "PRESETS",
    "RopeScaling",
    "alibi_bias",
    "alibi_slopes",
    "allowed_mask",
    "apply_fn",
    "forward_with_intermediates",
    "fused_cpu_problems",
    "init_ensemble",
    "load_hf",
    "param_count",
    "preset",
    "rope",
    "save_hf",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, _SUBMODULES)
