"""Capture (what to record during a forward pass) and Intermediates (what comes back).

    y, inter = model.forward_with_intermediates(x, capture=Capture(probs=True))
    inter.resid_norm        # [H, (B,) L]
    inter.attn_probs        # [H, (B,) N, L, L]
    inter.layer(0)          # the same fields for layer 1 only

Shapes: H depth (leading layer axis), B batch (absent for unbatched x),
L positions, N query heads. Intermediates is a JAX pytree (jit can return it).
"""

from __future__ import annotations

import dataclasses

import jax

from ..validation import check_bool


@dataclasses.dataclass(frozen=True, kw_only=True)
class Capture:
    """What :meth:`Decoder.forward_with_intermediates` records per layer.

    Attributes:
      norms: the per-token norms resid_norm, attn_out_norm and mlp_out_norm.
      probs: the attention probabilities (H N L^2 numbers per batch element;
        the dense L x L attention route: leave off for long contexts).
    """

    norms: bool = True
    probs: bool = False

    def __post_init__(self):
        check_bool("norms", self.norms)
        check_bool("probs", self.probs)


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True, kw_only=True)
class Intermediates:
    """Per-layer values of one forward pass, each with a leading layer axis H (None if not captured).

    Attributes:
      resid_norm: [H, (B,) L] ||x_i|| of the residual stream entering each block.
      attn_out_norm: [H, (B,) L] ||Attn(norm1(x))_i||, the attention branch
        before residual mixing.
      mlp_out_norm: [H, (B,) L] ||MLP(norm2(x))_i|| (None without an MLP).
      attn_probs: [H, (B,) N, L, L] attention probabilities.
    """

    resid_norm: jax.Array | None = None
    attn_out_norm: jax.Array | None = None
    mlp_out_norm: jax.Array | None = None
    attn_probs: jax.Array | None = None

    def layer(self, index: int) -> "Intermediates":
        """The fields of one layer (0-based ``index``), without the layer axis."""
        return jax.tree.map(lambda v: v[index], self)

    def as_dict(self) -> dict:
        """{field name: array} for the captured fields."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if getattr(self, f.name) is not None}
