"""Softmax attention through the fused CPU kernel (attention.cc), with its own backward.

Shapes: q [B, L, G, R, Dh], k and v [B, L, G, Dh] (B may be several leading
dims), float32 only. The forward saves o and the row log-sum-exps lse [B, L, G, R];
the backward recomputes the probabilities from them (see attention.cc for
the formulas). Under vmap every operand is broadcast to the mapped batch.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np

from ...masks.spec import MaskSpec
from ...validation import check_bool
from . import build

MAX_HEAD_DIM = 512  # kMaxHeadDim in attention.cc
MASK_CODES = {"causal": 0, "bidirectional": 1, "sliding_window": 2, "prefix_lm": 3}
"""Kind codes of attention.cc's MaskRule, a C++ copy of the rule of the mask classes
(``MaskSpec(kind).rule.allows``, lostmid_jax/masks), tested equal to it (tests/kernels)."""


@dataclasses.dataclass(frozen=True)
class FusedSpec:
    """Static description of one fused attention call (hashable).

    Attributes:
      mask: the MaskSpec (every kind but "document", which needs segment ids; no sinks).
      freeze_probs: hold the probabilities fixed in the backward pass (value pathway).
    """

    mask: MaskSpec
    freeze_probs: bool = False

    def __post_init__(self):
        if not isinstance(self.mask, MaskSpec):
            raise ValueError(f"mask must be an nn.MaskSpec, got {type(self.mask).__name__}")
        if self.mask.kind not in MASK_CODES:
            raise ValueError(f"attn_impl='fused_cpu' supports mask in {sorted(MASK_CODES)}, got mask={self.mask.kind!r}")
        if self.mask.sinks:
            raise ValueError(f"attn_impl='fused_cpu' supports no attention sinks (one key range per query), "
                             f"got sinks={self.mask.sinks}; use attn_impl='blocked'")
        check_bool("freeze_probs", self.freeze_probs)

    @classmethod
    def from_config(cls, cfg, freeze_probs: bool = False) -> "FusedSpec":
        """From a DecoderConfig's mask (``MaskSpec.from_config(cfg)``)."""
        return cls(MaskSpec.from_config(cfg), freeze_probs)

    def attrs(self) -> dict:
        """The mask as the kernel's FFI attributes (kind code, window, prefix; 0 when unused)."""
        return {"kind": np.int64(MASK_CODES[self.mask.kind]), "window": np.int64(self.mask.window or 0),
                "prefix": np.int64(self.mask.prefix or 0)}


def fused_attention(q, k, v, spec: FusedSpec):
    """Softmax attention output [B, L, G, R, Dh] (float32 in, float32 out); builds the kernel on first use."""
    for name, x in (("q", q), ("k", k), ("v", v)):
        if x.dtype != jnp.float32:
            raise ValueError(f"fused attention needs float32 {name}, got {x.dtype}")
    kv_shape = (*q.shape[:-2], q.shape[-1]) if q.ndim >= 4 else None
    if kv_shape is None or k.shape != kv_shape or v.shape != kv_shape:
        raise ValueError(f"fused attention needs q [..., L, G, R, Dh] and k, v [..., L, G, Dh]; "
                         f"got q {q.shape}, k {k.shape}, v {v.shape}")
    if not 1 <= q.shape[-1] <= MAX_HEAD_DIM:
        raise ValueError(f"fused attention needs head dim Dh in [1, {MAX_HEAD_DIM}], got {q.shape[-1]}")
    build.load()
    return _attend(q, k, v, spec)


def _forward(q, k, v, spec):
    out_types = (jax.ShapeDtypeStruct(q.shape, jnp.float32), jax.ShapeDtypeStruct(q.shape[:-1], jnp.float32))
    call = jax.ffi.ffi_call("lostmid_attention_fwd", out_types, vmap_method="broadcast_all")
    return call(q, k, v, **spec.attrs())


@functools.partial(jax.custom_vjp, nondiff_argnums=(3,))
def _attend(q, k, v, spec):
    return _forward(q, k, v, spec)[0]


def _attend_fwd(q, k, v, spec):
    o, lse = _forward(q, k, v, spec)
    return o, (q, k, v, o, lse)


def _attend_bwd(spec, saved, d_out):
    q, k, v, o, lse = saved
    out_types = tuple(jax.ShapeDtypeStruct(x.shape, jnp.float32) for x in (q, k, v))
    call = jax.ffi.ffi_call("lostmid_attention_bwd", out_types, vmap_method="broadcast_all")
    return call(q, k, v, o, lse, d_out.astype(jnp.float32), **spec.attrs(), freeze_probs=spec.freeze_probs)


_attend.defvjp(_attend_fwd, _attend_bwd)
