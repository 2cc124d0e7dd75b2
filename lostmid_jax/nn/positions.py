"""Position encodings as pure functions: RoPE and ALiBi.

Shapes: B batch, L positions, N heads, Dh head dim.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from ..masks.alibi_slopes import float_slopes
from .rope_scaling import RopeScaling


def rope_inv_freq(head_dim: int, theta: float, scaling: RopeScaling | None = None, dtype=jnp.float32,
                  seq_len=None) -> jnp.ndarray:
    """RoPE frequencies f_c = theta^(-2c/Dh), c = 0..Dh/2 - 1, rescaled by ``scaling``.

    "linear": f_c / s. "llama3": with lambda_c = 2 pi / f_c, f_c where
    lambda_c < P / beta, f_c / s where lambda_c > P / alpha, and
    (1 - u) f_c / s + u f_c with u = (P / lambda_c - alpha) / (beta - alpha)
    between. "dynamic": the base theta (s max(L, P) / P - (s - 1))^(Dh/(Dh-2))
    with L = ``seq_len``. "yarn": the ramp between f_c / s and f_c (see
    :mod:`.rope_scaling` for every formula). Each is computed in ``dtype`` in
    the order transformers' ``_compute_*_parameters`` use, so float32 results
    agree to the last bits.

    Args:
      head_dim: Dh (even).
      theta: RoPE base.
      scaling: None or an nn.RopeScaling.
      dtype: the float dtype of the computation.
      seq_len: L, 1 + the largest position of the sequence (an int or a traced
        scalar); used by "dynamic" only (None: P, i.e. no rescaling).

    Returns:
      [Dh / 2] frequencies in ``dtype``.
    """
    exponents = jnp.arange(head_dim // 2, dtype=dtype) * 2 / head_dim  # 2c / Dh
    kind = None if scaling is None else scaling.kind
    if kind == "dynamic":
        p, s = scaling.original_max_positions, scaling.factor
        length = jnp.maximum(jnp.asarray(p if seq_len is None else seq_len), p).astype(dtype)
        theta = theta * ((s * length / p) - (s - 1)) ** (head_dim / (head_dim - 2))
    inv_freq = 1.0 / theta ** exponents
    if kind in (None, "dynamic"):
        return inv_freq
    s = scaling.factor
    if kind == "linear":
        return inv_freq / s
    if kind == "yarn":
        return _yarn_inv_freq(head_dim, theta, scaling, dtype)
    alpha, beta, p = scaling.low_freq_factor, scaling.high_freq_factor, scaling.original_max_positions
    wavelen = 2 * math.pi / inv_freq
    scaled = jnp.where(wavelen > p / alpha, inv_freq / s, inv_freq)
    u = (p / wavelen - alpha) / (beta - alpha)
    smooth = (1 - u) * scaled / s + u * scaled
    medium = ~(wavelen < p / beta) & ~(wavelen > p / alpha)
    return jnp.where(medium, smooth, scaled)


def _yarn_inv_freq(head_dim: int, theta: float, scaling: RopeScaling, dtype) -> jnp.ndarray:
    """YaRN's frequencies (Peng et al. 2023, arXiv:2309.00071, as transformers' _compute_yarn_parameters):
    f_c / s (1 - e_c) + f_c e_c with e_c = 1 - clip((c - lo) / (hi - lo), 0, 1)."""
    s, p = scaling.factor, scaling.original_max_positions
    fast, slow = scaling.yarn_betas

    def dim_of(rotations):  # the dim whose wavelength fits ``rotations`` times into P
        return head_dim * math.log(p / (rotations * 2 * math.pi)) / (2 * math.log(theta))

    lo, hi = dim_of(fast), dim_of(slow)
    if scaling.truncate is not False:
        lo, hi = math.floor(lo), math.ceil(hi)
    lo, hi = max(lo, 0), min(hi, head_dim - 1)
    if lo == hi:
        hi += 0.001  # as transformers: no division by zero
    pos_freqs = theta ** (jnp.arange(head_dim // 2, dtype=dtype) * 2 / head_dim)
    ramp = jnp.clip((jnp.arange(head_dim // 2, dtype=dtype) - lo) / (hi - lo), 0, 1)
    extrapolation = 1 - ramp
    return 1.0 / (s * pos_freqs) * (1 - extrapolation) + 1.0 / pos_freqs * extrapolation


def rope(x: jnp.ndarray, positions: jnp.ndarray, theta: float, scaling: RopeScaling | None = None) -> jnp.ndarray:
    """Rotary position embedding, rotate-half convention (Llama, Qwen2).

    Channel pairs (c, c + Dh/2) are rotated by the angle p * f_c with
    f_c = theta^(-2c/Dh) (rescaled by ``scaling``, :func:`rope_inv_freq`), so
    rope(q, p) . rope(k, p') depends on p - p' only (Su et al., RoFormer).
    With "yarn" scaling the result is multiplied by the attention factor m
    (``scaling.attention_scale``); with "dynamic" the frequencies depend on
    L = 1 + max(positions) (over the whole batch, as in transformers).

    Args:
      x: [..., L, N, Dh] queries or keys, Dh even.
      positions: [..., L] integer (or float) positions, broadcastable to x's
        leading axes.
      theta: base of the frequencies.
      scaling: None, or an nn.RopeScaling.

    Returns:
      [..., L, N, Dh], same dtype as x.
    """
    half = x.shape[-1] // 2
    fdt = jnp.promote_types(x.dtype, jnp.float32)  # angles in >= float32
    seq_len = jnp.max(positions) + 1 if scaling is not None and scaling.kind == "dynamic" else None
    inv_freq = rope_inv_freq(x.shape[-1], theta, scaling, fdt, seq_len)
    angles = positions.astype(fdt)[..., None] * inv_freq  # [..., L, Dh/2]
    cos, sin = jnp.cos(angles), jnp.sin(angles)
    if scaling is not None and scaling.attention_scale != 1.0:
        cos, sin = cos * scaling.attention_scale, sin * scaling.attention_scale
    cos = jnp.concatenate([cos, cos], axis=-1)[..., None, :].astype(x.dtype)  # [..., L, 1, Dh]
    sin = jnp.concatenate([-sin, sin], axis=-1)[..., None, :].astype(x.dtype)
    # (x1, x2) -> (x1 cos - x2 sin, x2 cos + x1 sin), with the halves swapped by a roll
    return x * cos + jnp.roll(x, half, axis=-1) * sin


def alibi_slopes(heads: int, rule: str = "alibi") -> np.ndarray:
    """ALiBi slopes m_h = 2^e_h, h = 1..N, by the rule of :mod:`lostmid_jax.masks.alibi_slopes`.

    "alibi" (default) is the published rule for any head count; "geometric"
    is 2^(-8 h / N) for every N.

    Returns:
      [N] float64 numpy array.
    """
    return np.asarray(float_slopes(heads, rule), dtype=np.float64)


def alibi_bias(heads: int, positions: jnp.ndarray, dtype, key_positions: jnp.ndarray | None = None,
               rule: str = "alibi") -> jnp.ndarray:
    """ALiBi score bias -m_h |p_i - p_j| for every head and query/key pair.

    Args:
      heads: N.
      positions: [B, Lq] query positions.
      dtype: output dtype.
      key_positions: [B, Lk] key positions (default: ``positions``).
      rule: slope rule of :func:`alibi_slopes` ("alibi" or "geometric").

    Returns:
      [B, N, Lq, Lk] bias, built from the positions (no stored buffer).
    """
    slopes = jnp.asarray(alibi_slopes(heads, rule), dtype=dtype)
    pos = positions.astype(dtype)
    kpos = pos if key_positions is None else key_positions.astype(dtype)
    dist = jnp.abs(pos[:, :, None] - kpos[:, None, :])  # [B, Lq, Lk]
    return -slopes[None, :, None, None] * dist[:, None]
