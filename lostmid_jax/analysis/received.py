"""Attention received per key position, raw and against uniform attention over the same mask.

Shapes: H depth (layers asked for), N query heads, L positions, B inputs; A [L, L] one head's
attention probabilities of one layer (row i: query i = 1..L, column j: key j).

    raw, ratio = attention_received(model, x)             # [H, N, L] each; x [L, D], [L] token ids, or a batch
    m = uniform_ratio_map(probs, allowed)                 # [..., L, L]: |S_i| A_ij (1 = uniform), NaN off the mask
    heat = binned_ratio_map(probs, allowed, 64)           # [64, 64]: its mean over each bin's allowed pairs
    allowed = allowed_keys(cfg, L)                        # [L, L] bool, from the mask classes (lostmid_jax.masks)

Formulas (S_i the keys query i sees, from the model's mask: :func:`prior_for`'s
mask class and its ``allows``; 1/|S_i| is what uniform attention gives each):

- raw_j = (1/L) sum_i A_ij: the practitioners' column mean over every query
  row, the zeros above the diagonal included (so under a causal mask it falls
  with j even for uniform attention: key j is seen by L - j + 1 queries);
- vs_uniform_j = sum_i A_ij / sum_{i : j in S_i} 1/|S_i|: the attention key j
  receives over what uniform attention over the same mask would give it (1
  everywhere for uniform attention, whatever the mask: causal, window,
  sinks, prefix-LM, documents). Under the causal mask the denominator is
  sum_{i >= j} 1/i = H_L - H_{j-1}. (Mask "document" is refused: its
  segment ids are given per call.)
- The heat map's |S_i| A_ij is the same ratio per (query, key) pair: i A_ij
  under the causal mask, 1 for uniform attention.

With a batch [B, ...] both profiles are averaged over the B inputs (the
denominator does not depend on the input, so the mean of ratios is the ratio
of the means). The probabilities come from ``nn.Capture(probs=True)``: one
forward per input holds every layer's H N L^2 float32 probabilities (4 GB for
H = N = 32 at L = 1024; keep L moderate); only the chosen layers' column sums
[H', N, L] are kept.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from flax import nnx

from ..nn import Capture, Execution
from .prior_bridge import prior_for
from .strength import _intermediates

_PROBS_ONLY = Capture(norms=False, probs=True)


def allowed_keys(cfg, length: int) -> np.ndarray:
    """[L, L] bool: entry (i, j) is True where query i sees key j under ``cfg``'s mask (0-based).

    The rule is the mask class of :func:`prior_for` (its support for ALiBi), so
    windows, sinks and prefix-LM follow the same definition as the theory.
    """
    mask = prior_for(cfg, length).support
    i = np.arange(length)
    return np.asarray(mask.allows(i[:, None], i[None, :]), dtype=bool)


def uniform_share(allowed) -> np.ndarray:
    """[L, L] float64: 1 / |S_i| where query i sees key j, else 0 (uniform attention over the mask)."""
    allowed = np.asarray(allowed, bool)
    return allowed / allowed.sum(axis=1, keepdims=True)


def uniform_ratio_map(probs, allowed) -> np.ndarray:
    """|S_i| A_ij for probabilities [..., L, L]: 1 where attention is uniform over the mask; NaN off the mask."""
    probs = np.asarray(probs, np.float64)
    allowed = np.asarray(allowed, bool)
    size = allowed.sum(axis=1, keepdims=True)
    return np.where(allowed, probs * size, np.nan)


def binned_ratio_map(probs, allowed, bins: int) -> np.ndarray:
    """The heat map's |S_i| A_ij averaged over the allowed pairs of each (query bin, key bin): [B, B], NaN for a
    bin with no allowed pair. Position j (0-based) falls in bin floor(j B / L); ``bins`` >= L keeps every pair.

    Args:
      probs: [L, L] attention probabilities (e.g. the mean over heads of one layer).
      allowed: [L, L] bool mask of the pairs (:func:`allowed_keys`).
      bins: B >= 1.
    """
    ratio = uniform_ratio_map(probs, allowed)
    length = ratio.shape[0]
    bins = min(int(bins), length)
    if bins < 1:
        raise ValueError(f"bins must be >= 1, got {bins}")
    index = np.arange(length) * bins // length
    onehot = np.eye(bins)[index]  # [L, B]
    ok = np.isfinite(ratio)
    sums = onehot.T @ np.where(ok, ratio, 0.0) @ onehot
    counts = onehot.T @ ok.astype(float) @ onehot
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / counts, np.nan)


def _check_x(model, x):
    """x as token ids ([L] or [B, L] integers) or embeddings ([L, D] or [B, L, D]) -> [B, L, D] embeddings."""
    cfg = model.cfg
    arr = np.asarray(x)
    if arr.dtype.kind in "iu":
        if cfg.vocab_size is None:
            raise ValueError("x holds token ids but the model has no vocabulary (cfg.vocab_size is None)")
        if arr.ndim not in (1, 2) or arr.shape[-1] < 1:
            raise ValueError(f"x as token ids must have shape [L] or [B, L] (L >= 1), got {arr.shape}")
        if arr.min() < 0 or arr.max() >= cfg.vocab_size:
            raise ValueError(f"x token ids must lie in [0, {cfg.vocab_size}), got {arr.min()}..{arr.max()}")
        tokens = jnp.asarray(arr.reshape(-1, arr.shape[-1]), jnp.int32)
        return model.embed(tokens)
    if arr.ndim not in (2, 3) or arr.shape[-1] != cfg.width or arr.shape[-2] < 1:
        raise ValueError(f"x must be token ids [L] / [B, L] or embeddings [L, {cfg.width}] / [B, L, {cfg.width}], "
                         f"got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("x must be finite (NaN or inf entries found)")
    return jnp.asarray(arr.reshape(-1, *arr.shape[-2:]), cfg.compute_dtype)


def _check_layers(layers, depth: int) -> np.ndarray:
    if layers is None:
        return np.arange(depth)
    values = [layers] if np.ndim(layers) == 0 else list(layers)
    if not values or any(isinstance(v, bool) or not float(v).is_integer() or not -depth <= int(v) < depth
                         for v in values):
        raise ValueError(f"layers must be None or layer indices in [{-depth}, {depth}), got {layers!r}")
    return np.asarray([int(v) % depth for v in values])


def _per_input(model, x, layers):
    """Yield each input's attention probabilities of the chosen layers, [H', N, L, L] (a jax array)."""
    h = _check_x(model, x)
    chosen = jnp.asarray(_check_layers(layers, model.cfg.depth))
    graphdef, state = nnx.split(model)
    for row in h:  # one input at a time: H N L^2 probabilities each
        yield _intermediates(graphdef, state, row, capture=_PROBS_ONLY, execution=Execution()).attn_probs[chosen]


def attention_probs_batch(model, x, *, layers=None) -> np.ndarray:
    """Mean attention probabilities over the inputs: [H', N, L, L] float64 (x, layers as attention_received)."""
    probs = [np.asarray(p, np.float64) for p in _per_input(model, x, layers)]
    return np.mean(probs, axis=0)


def attention_received(model, x, *, layers=None) -> tuple[np.ndarray, np.ndarray]:
    """Attention each key position receives, per layer and head: (raw, vs_uniform), each [H', N, L] float64.

    Args:
      model: an nn.Decoder.
      x: input embeddings [L, D] (as for :func:`influence_profile`) or a batch [B, L, D]; or token ids
        [L] / [B, L] (integers), embedded with ``model.embed``. A batch is averaged.
      layers: None (all H layers) or layer indices (negative counts from the end), in that order.

    Returns:
      raw [H', N, L]: (1/L) sum_i A_ij; vs_uniform [H', N, L]: sum_i A_ij / sum_{i sees j} 1/|S_i|
      (module docstring).

    Raises:
      ValueError: naming ``x`` (shape, token ids out of range, non-finite values) or ``layers``;
        ``model`` with mask "document" (its segment ids are given per call; not supported here).
    """
    cfg = model.cfg
    if cfg.mask == "document":
        raise ValueError("model: attention_received does not take mask 'document' models (segment ids are "
                         "given per call); use a causal, window, sinks or prefix-LM mask")
    sums = [np.asarray(p.sum(axis=-2), np.float64) for p in _per_input(model, x, layers)]  # [H', N, L] each
    received = np.mean(sums, axis=0)  # sum over queries i, mean over inputs
    length = received.shape[-1]
    expected = uniform_share(allowed_keys(cfg, length)).sum(axis=0)  # [L]: sum_{i sees j} 1 / |S_i|
    return received / length, received / expected


__all__ = ["allowed_keys", "attention_probs_batch", "binned_ratio_map", "attention_received", "uniform_ratio_map", "uniform_share"]
