"""How far Step-0 attention is from uniform over the allowed keys, per layer.

Shapes: H layers, N heads, L positions (1-based query i, key j).

For a causal attention row P_i (keys j <= i, i >= 2; row 1 has one key and is
always uniform), with u_i = 1/i the uniform row over the allowed keys:

    KL_i     = sum_{j <= i} P_ij log(P_ij / u_i) = sum_{j <= i} P_ij log(i P_ij)   (nats, >= 0)
    spread_i = std_{j <= i}(i P_ij)     (relative spread of the weights; 0 when uniform)
    max_i    = max_{j <= i} i P_ij      (largest weight over the uniform one; 1 when uniform)

Per layer, each is averaged over heads and rows i = 2..L. q.k at init_std 0.02
is small but not zero, so these are small, not zero.
"""

from __future__ import annotations

import numpy as np

FIELDS = ("kl", "spread", "max_ratio")


def uniformity(probs) -> dict[str, np.ndarray]:
    """{"kl", "spread", "max_ratio"}: [H] each, from causal attention probabilities [H, N, L, L].

    Raises:
      ValueError: naming ``probs`` if it is not [H, N, L, L] with L >= 2, finite,
        or has weight on a key after its query.
    """
    p = np.asarray(probs, np.float64)
    if p.ndim != 4 or p.shape[-1] != p.shape[-2] or p.shape[-1] < 2:
        raise ValueError(f"probs must have shape [H, N, L, L] with L >= 2, got {p.shape}")
    if not np.all(np.isfinite(p)):
        raise ValueError("probs must be finite")
    length = p.shape[-1]
    allowed = np.tril(np.ones((length, length), bool))
    if np.any(np.abs(p[..., ~allowed]) > 1e-6):
        raise ValueError("probs must be causal (no weight on keys j > i)")
    i = np.arange(1, length + 1, dtype=np.float64)[:, None]  # [L, 1]
    ratio = np.where(allowed, p * i, 0.0)  # i P_ij on allowed keys
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(allowed & (p > 0), p * np.log(np.where(ratio > 0, ratio, 1.0)), 0.0)
    kl = terms.sum(axis=-1)  # [H, N, L]
    mean = 1.0  # sum_j i P_ij / i
    var = np.where(allowed, (ratio - mean) ** 2, 0.0).sum(axis=-1) / i[:, 0]
    rows = slice(1, None)  # i >= 2
    return {"kl": kl[..., rows].mean(axis=(1, 2)), "spread": np.sqrt(var)[..., rows].mean(axis=(1, 2)),
            "max_ratio": ratio.max(axis=-1)[..., rows].mean(axis=(1, 2))}


__all__ = ["FIELDS", "uniformity"]
