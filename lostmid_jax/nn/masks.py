"""Attention masks built from iota comparisons (no stored L x L buffers).

A mask says which key positions j a query position i may attend to (0-based
indices along the sequence axis, independent of the position encoding):

    causal          j <= i
    bidirectional   every j
    sliding_window  i - w < j <= i          (w positions including i)
    document        j <= i and seg[i] == seg[j]
    prefix_lm       j <= i or j < n         (n prefix tokens)

Every mask allows the diagonal, so every row has at least one allowed key.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .config import DecoderConfig


def allowed_mask(cfg: DecoderConfig, length: int,
                 segment_ids: jax.Array | None = None) -> jax.Array:
    """Boolean mask of allowed (query, key) pairs.

    Args:
      cfg: uses ``mask``, ``window``, ``prefix``.
      length: L.
      segment_ids: [B, L] integer segment (document) ids; required for mask
        "document". With any other mask they further restrict attention to
        the same segment.

    Returns:
      [1, L, L] (or [B, L, L] with segment ids) boolean, True = allowed.
    """
    i = jax.lax.broadcasted_iota(jnp.int32, (length, length), 0)  # query index
    j = jax.lax.broadcasted_iota(jnp.int32, (length, length), 1)  # key index
    if cfg.mask == "bidirectional":
        allowed = jnp.ones((length, length), bool)
    elif cfg.mask == "sliding_window":
        allowed = (j <= i) & (j > i - cfg.window)
    elif cfg.mask == "prefix_lm":
        allowed = (j <= i) | (j < cfg.prefix)
    else:  # causal, document
        allowed = j <= i
    allowed = allowed[None]
    if cfg.mask == "document" and segment_ids is None:
        raise ValueError("segment_ids are required with mask='document'")
    if segment_ids is not None:
        seg = jnp.asarray(segment_ids)
        if seg.shape[-1] != length:
            raise ValueError(f"segment_ids must have length L={length}, got shape {seg.shape}")
        seg = seg.reshape((-1, length))
        allowed = allowed & (seg[:, :, None] == seg[:, None, :])
    return allowed
