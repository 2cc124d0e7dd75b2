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
    if segment_ids is not None and jnp.asarray(segment_ids).shape[-1] != length:
        raise ValueError(f"segment_ids must have length L={length}, "
                         f"got shape {jnp.asarray(segment_ids).shape}")
    return allowed_block(cfg, (0, length), (0, length), segment_ids)


def allowed_block(cfg: DecoderConfig, queries: tuple[int, int], keys: tuple[int, int],
                  segment_ids: jax.Array | None = None) -> jax.Array:
    """The mask restricted to query rows [q0, q1) and key columns [k0, k1).

    Args:
      cfg: uses ``mask``, ``window``, ``prefix``.
      queries, keys: static half-open index ranges.
      segment_ids: [B, L] segment ids over the whole sequence, or None.

    Returns:
      [1, q1 - q0, k1 - k0] (or [B, ...] with segment ids) boolean.
    """
    (q0, q1), (k0, k1) = queries, keys
    shape = (q1 - q0, k1 - k0)
    i = jax.lax.broadcasted_iota(jnp.int32, shape, 0) + q0  # query index
    j = jax.lax.broadcasted_iota(jnp.int32, shape, 1) + k0  # key index
    if cfg.mask == "bidirectional":
        allowed = jnp.ones(shape, bool)
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
        seg = seg.reshape((-1, seg.shape[-1]))
        allowed = allowed & (seg[:, q0:q1, None] == seg[:, None, k0:k1])
    return allowed


def key_range(cfg: DecoderConfig, queries: tuple[int, int], length: int) -> tuple[int, int]:
    """Smallest key range [k0, k1) holding every key that queries [q0, q1) may see.

    causal / document: [0, q1); sliding_window: [max(0, q0 - w + 1), q1);
    prefix_lm: [0, max(q1, n)) (clipped to L); bidirectional: [0, L).
    """
    q0, q1 = queries
    if cfg.mask in ("causal", "document"):
        return 0, q1
    if cfg.mask == "sliding_window":
        return max(0, q0 - cfg.window + 1), q1
    if cfg.mask == "prefix_lm":
        return 0, min(length, max(q1, cfg.prefix))
    return 0, length
