"""Attention masks built from iota comparisons (no stored L x L buffers), or as numpy
constants for one block when they are fixed at trace time (static_allowed_block).

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
import numpy as np

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
    allowed = _rule(cfg, i, j)
    allowed = allowed[None]
    if cfg.mask == "document" and segment_ids is None:
        raise ValueError("segment_ids are required with mask='document'")
    if segment_ids is not None:
        seg = jnp.asarray(segment_ids)
        seg = seg.reshape((-1, seg.shape[-1]))
        allowed = allowed & (seg[:, q0:q1, None] == seg[:, None, k0:k1])
    return allowed


def static_allowed_block(cfg: DecoderConfig, queries: tuple[int, int],
                         keys: tuple[int, int]) -> np.ndarray:
    """allowed_block without segment ids as a numpy constant [q1 - q0, k1 - k0]
    (for masks fixed at trace time; "document" masks need segment ids)."""
    if cfg.mask == "document":
        raise ValueError("segment_ids are required with mask='document'")
    (q0, q1), (k0, k1) = queries, keys
    return _rule(cfg, np.arange(q0, q1)[:, None], np.arange(k0, k1)[None, :])


def _rule(cfg: DecoderConfig, i, j):
    """Allowed (query i, key j) pairs of the mask, on broadcastable numpy or jax index arrays."""
    if cfg.mask == "bidirectional":
        return (i >= 0) & (j >= 0)
    if cfg.mask == "sliding_window":
        return (j <= i) & (j > i - cfg.window)
    if cfg.mask == "prefix_lm":
        return (j <= i) | (j < cfg.prefix)
    return j <= i  # causal, document


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
