"""Position encodings as pure functions: RoPE and ALiBi.

Shapes: B batch, L positions, N heads, Dh head dim.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np


def rope(x: jnp.ndarray, positions: jnp.ndarray, theta: float) -> jnp.ndarray:
    """Rotary position embedding, rotate-half convention (Llama, Qwen2).

    Channel pairs (c, c + Dh/2) are rotated by the angle p * theta^(-2c/Dh), so
    rope(q, p) . rope(k, p') depends on p - p' only (Su et al., RoFormer).

    Args:
      x: [..., L, N, Dh] queries or keys, Dh even.
      positions: [..., L] integer (or float) positions, broadcastable to x's
        leading axes.
      theta: base of the frequencies.

    Returns:
      [..., L, N, Dh], same dtype as x.
    """
    half = x.shape[-1] // 2
    fdt = jnp.promote_types(x.dtype, jnp.float32)  # angles in >= float32
    inv_freq = 1.0 / theta ** (jnp.arange(half, dtype=fdt) * 2 / x.shape[-1])
    angles = positions.astype(fdt)[..., None] * inv_freq  # [..., L, Dh/2]
    cos, sin = jnp.cos(angles), jnp.sin(angles)
    cos = jnp.concatenate([cos, cos], axis=-1)[..., None, :].astype(x.dtype)  # [..., L, 1, Dh]
    sin = jnp.concatenate([-sin, sin], axis=-1)[..., None, :].astype(x.dtype)
    # (x1, x2) -> (x1 cos - x2 sin, x2 cos + x1 sin), with the halves swapped by a roll
    return x * cos + jnp.roll(x, half, axis=-1) * sin


def alibi_slopes(heads: int) -> np.ndarray:
    """ALiBi slopes m_h = 2^(-8 h / N), h = 1..N (Press et al. 2022).

    Returns:
      [N] float64 numpy array.
    """
    return 2.0 ** (-8.0 * np.arange(1, heads + 1) / heads)


def alibi_bias(heads: int, positions: jnp.ndarray, dtype, key_positions: jnp.ndarray | None = None) -> jnp.ndarray:
    """ALiBi score bias -m_h |p_i - p_j| for every head and query/key pair.

    Args:
      heads: N.
      positions: [B, Lq] query positions.
      dtype: output dtype.
      key_positions: [B, Lk] key positions (default: ``positions``).

    Returns:
      [B, N, Lq, Lk] bias, built from the positions (no stored buffer).
    """
    slopes = jnp.asarray(alibi_slopes(heads), dtype=dtype)
    pos = positions.astype(dtype)
    kpos = pos if key_positions is None else key_positions.astype(dtype)
    dist = jnp.abs(pos[:, :, None] - kpos[:, None, :])  # [B, Lq, Lk]
    return -slopes[None, :, None, None] * dist[:, None]
