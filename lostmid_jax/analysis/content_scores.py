"""A model's Step-0 content scores per layer and head, and the theory Content prior they give.

Shapes: H layers, N heads, L positions (1-based query i, key j), S samples.

Softmax attention gives p_ij = exp(s_ij + b_ij) / Z_i over the allowed keys
S_i, with s_ij = q_i . k_j / sqrt(d) the content score and b_ij the
position bias (ALiBi: -m_h |i - j|, else 0). So the content scores are known
from the captured probabilities up to a constant per row:

    t_ij = log p_ij - b_ij = s_ij - log Z_i,     j in S_i.

A softmax cannot see a constant per row, so the statistics are centred per
row (c_ij = t_ij - mean_{k in S_i} t_ik) and averaged over the rows with at
least two allowed keys and over the samples:

    diag[l, h]    = mean_i c_ii                          (mean diagonal / self score)
    offdiag[l, h] = mean_i mean_{j in S_i, j != i} c_ij  (mean off-diagonal score)
    bonus[l, h]   = mean_i (c_ii - mean_{j != i} c_ij)   (the self bonus, = s_ii - mean_{j != i} s_ij)

:func:`content_prior` turns them into ``theory.Content(mask, heads=N,
diag=bonus, base=offdiag, slopes=ALiBi rule)`` with one row per layer, the
prior of :func:`~lostmid_jax.analysis.prior_bridge.prior_for` with
``content=True``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .. import theory


@dataclasses.dataclass(frozen=True)
class ContentScores:
    """Per-layer, per-head score statistics (module docstring), each a float64 array [H, N].

    Attributes:
      diag, offdiag, bonus: the row-centred statistics.
      rows: rows i averaged per sample (rows with at least two allowed keys).
      samples: S, the inputs averaged over.
    """

    diag: np.ndarray
    offdiag: np.ndarray
    bonus: np.ndarray
    rows: int
    samples: int


def score_statistics(probs, allowed, bias=None) -> ContentScores:
    """The statistics from attention probabilities.

    Args:
      probs: [H, N, L, L] or [S, H, N, L, L] attention probabilities (query
        i on axis -2, key j on axis -1).
      allowed: [L, L] bool, True where query i may attend to key j (0-based);
        every allowed entry of ``probs`` must be > 0.
      bias: None, or the position bias [N, L, L] added to the scores (ALiBi).

    Raises:
      ValueError: naming the argument, for wrong shapes, a probability <= 0
        or non-finite on an allowed key, or no row with two allowed keys.
    """
    p = np.asarray(probs, dtype=np.float64)
    p = p[None] if p.ndim == 4 else p
    if p.ndim != 5 or p.shape[-1] != p.shape[-2]:
        raise ValueError(f"probs must have shape [H, N, L, L] or [S, H, N, L, L], got {np.shape(probs)}")
    length = p.shape[-1]
    allowed = np.asarray(allowed, dtype=bool)
    if allowed.shape != (length, length) or not np.all(np.diag(allowed)):
        raise ValueError(f"allowed must be a [{length}, {length}] bool mask that allows every query itself")
    if not np.all(np.isfinite(p[..., allowed])) or np.any(p[..., allowed] <= 0):
        raise ValueError("probs must be finite and > 0 on every allowed key")
    b = np.zeros((p.shape[2], length, length)) if bias is None else np.asarray(bias, dtype=np.float64)
    if b.shape != (p.shape[2], length, length):
        raise ValueError(f"bias must have shape [N={p.shape[2]}, {length}, {length}], got {b.shape}")
    counts = allowed.sum(axis=1)  # [L]
    rows = counts >= 2
    if not rows.any():
        raise ValueError("allowed has no query with two allowed keys: nothing to compare the self score with")
    t = np.where(allowed, np.log(np.where(allowed, p, 1.0)) - b, 0.0)  # [S, H, N, L, L]; log of allowed p > 0 only
    centred = np.where(allowed, t - t.sum(axis=-1, keepdims=True) / counts[:, None], 0.0)
    self_score = np.diagonal(centred, axis1=-2, axis2=-1)  # [S, H, N, L]
    others = (centred.sum(axis=-1) - self_score)[..., rows] / (counts[rows] - 1)
    self_score = self_score[..., rows]
    mean = lambda v: v.mean(axis=(0, -1))  # noqa: E731  over samples and rows
    return ContentScores(diag=mean(self_score), offdiag=mean(others), bonus=mean(self_score - others),
                         rows=int(rows.sum()), samples=p.shape[0])


def alibi_bias(heads: int, length: int, rule: str) -> np.ndarray:
    """-m_h |i - j| [N, L, L] with the slopes of ``rule`` (:mod:`lostmid_jax.masks.alibi_slopes`)."""
    from ..masks.alibi_slopes import float_slopes

    d = np.abs(np.subtract.outer(np.arange(length), np.arange(length)))
    return -np.asarray(float_slopes(heads, rule))[:, None, None] * d[None]


def measure_scores(model, mask_prior, length: int, *, samples: int = 2, seed: int = 0) -> ContentScores:
    """The statistics of ``model`` at Step 0 on ``samples`` N(0, 1) inputs x [L, D] (keys from ``seed``).

    ``mask_prior``: the theory prior of the model's mask (its allowed keys).
    Captures every layer's probabilities ([H, N, L, L] per sample), so keep L moderate.
    """
    import jax

    from .strength import attention_probs
    from ..theory.prior_matrix import allowed_mask
    from ..validation import check_int

    samples, seed = check_int("samples", samples, 1), check_int("seed", seed, 0)
    cfg = model.cfg
    allowed = allowed_mask(mask_prior, length)
    bias = alibi_bias(cfg.heads, length, getattr(cfg, "alibi_rule", "alibi")) if cfg.position == "alibi" else None
    keys = jax.random.split(jax.random.key(seed), samples)
    probs = [attention_probs(model, jax.random.normal(k, (length, cfg.width)), range(cfg.depth)) for k in keys]
    return score_statistics(np.stack(probs), allowed, bias)


def content_prior(cfg, mask_prior, scores: ContentScores) -> "theory.Content":
    """theory.Content over ``mask_prior``: per-layer rows diag = bonus, base = offdiag; ALiBi slopes as the model's."""
    slopes = getattr(cfg, "alibi_rule", "alibi") if cfg.position == "alibi" else None
    return theory.Content(mask=mask_prior, heads=cfg.heads, diag=[[float(v) for v in row] for row in scores.bonus],
                          base=[[float(v) for v in row] for row in scores.offdiag], slopes=slopes)
