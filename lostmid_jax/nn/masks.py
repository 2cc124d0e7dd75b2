"""Attention masks as arrays: built from iota comparisons (no stored L x L buffers), or as
numpy constants for one block when they are fixed at trace time (static_allowed_block).

The rule of each mask kind is its class's ``allows`` in :mod:`lostmid_jax.masks`
(``MaskSpec.rule``, masks/spec.py); this module only evaluates it on index
ranges and adds the segment (document) ids.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..masks.spec import MaskSpec


def allowed_mask(mask: MaskSpec, length: int, segment_ids: jax.Array | None = None) -> jax.Array:
    """Boolean mask of allowed (query, key) pairs.

    Args:
      mask: the MaskSpec (``MaskSpec.from_config(cfg)``).
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
    return allowed_block(mask, (0, length), (0, length), segment_ids)


def allowed_block(mask: MaskSpec, queries: tuple[int, int], keys: tuple[int, int],
                  segment_ids: jax.Array | None = None) -> jax.Array:
    """The mask restricted to query rows [q0, q1) and key columns [k0, k1).

    Args:
      mask: the MaskSpec.
      queries, keys: static half-open index ranges.
      segment_ids: [B, L] segment ids over the whole sequence, or None.

    Returns:
      [1, q1 - q0, k1 - k0] (or [B, ...] with segment ids) boolean.
    """
    (q0, q1), (k0, k1) = queries, keys
    shape = (q1 - q0, k1 - k0)
    i = jax.lax.broadcasted_iota(jnp.int32, shape, 0) + q0  # query index
    j = jax.lax.broadcasted_iota(jnp.int32, shape, 1) + k0  # key index
    allowed = mask.allows(i, j)[None]
    if mask.needs_segments and segment_ids is None:
        raise ValueError("segment_ids are required with mask='document'")
    if segment_ids is not None:
        seg = jnp.asarray(segment_ids)
        seg = seg.reshape((-1, seg.shape[-1]))
        allowed = allowed & (seg[:, q0:q1, None] == seg[:, None, k0:k1])
    return allowed


def static_allowed_block(mask: MaskSpec, queries: tuple[int, int], keys: tuple[int, int]) -> np.ndarray:
    """allowed_block without segment ids as a numpy constant [q1 - q0, k1 - k0]
    (for masks fixed at trace time; "document" masks need segment ids)."""
    if mask.needs_segments:
        raise ValueError("segment_ids are required with mask='document'")
    (q0, q1), (k0, k1) = queries, keys
    return mask.allows(np.arange(q0, q1)[:, None], np.arange(k0, k1)[None, :])
