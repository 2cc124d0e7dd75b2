"""Dense L x L Step-0 attention matrices of the priors (small L, reference use).

The structured operators of :mod:`.prior_ops` never form these; they are the
independent route for checks and the baseline for benchmarks. Uniform priors
are A = mask / mask.sum(1) from the allowed sets of :mod:`.priors`; ALiBi is
the head average of softmax_j(-m_h (i - j)) over j <= i.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..validation import check_bool_like, check_int_like
from . import _costs
from .content import Content
from .priors import ALiBi, Bidirectional, Chunks, PrefixLM, SlidingWindow, Sinks, check_prior


def allowed_mask(prior, length: int) -> np.ndarray:
    """Boolean [L, L] mask, True where query i may attend to key j (0-based).

    >>> allowed_mask(SlidingWindow(2), 3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [0, 1, 1]])
    """
    prior = check_prior(prior, length)
    if isinstance(prior, (ALiBi, Content)):
        raise ValueError(f"prior {type(prior).__name__} has no 0/1 mask (its weights are not uniform); use attention_matrix")
    _costs.check_dense("allowed_mask", length, exact=False, copies=4.0)
    i, j = np.indices((length, length))
    causal = j <= i
    if isinstance(prior, Bidirectional):
        return np.ones((length, length), dtype=bool)
    if isinstance(prior, SlidingWindow):
        return causal & (j > i - min(prior.width, length))
    if isinstance(prior, Chunks):
        segment = np.repeat(np.arange(len(prior.lengths)), prior.lengths)
        return causal & (segment[i] == segment[j])
    if isinstance(prior, PrefixLM):
        return causal | ((i < prior.prefix) & (j < prior.prefix))
    if isinstance(prior, Sinks) and prior.window is not None:
        return causal & ((j < prior.count) | (j > i - min(prior.window, length)))
    return causal  # Causal, Sinks without a window


def content_matrix(prior: Content, length: int, layer: int = 0) -> np.ndarray:
    """float64 [L, L] matrix of layer ``layer`` (0-based) of a Content prior, dense.

    Head average with weights p_h of softmax over the allowed keys of
    (base + diag [i = j] + c_j - m |i - j|) / T (:mod:`.content`).
    """
    prior = check_prior(prior, length)
    layer = check_int_like("layer", layer, 0, prior.layers - 1)
    _costs.check_dense("attention_matrix", length, exact=False, copies=6.0, heads=prior.heads, per_entry_ns=30.0)
    from .content_ops import _slopes
    from ._arith import FloatOps

    values = prior.layer_values(layer)
    allowed = allowed_mask(prior.mask, length)
    i, j = np.indices((length, length))
    t = float(prior.temperature)
    scores = np.zeros(length) if prior.scores is None else np.array([float(c) for c in prior.scores])
    out = np.zeros((length, length))
    for p, m, d, b in zip(prior.weights(), _slopes(values, prior, FloatOps()), values["diag"], values["base"]):
        logits = float(b) / t + float(d) / t * (i == j) + scores[None, :] / t - (0.0 if m is None else m) * np.abs(i - j)
        logits = np.where(allowed, logits, -np.inf)
        weights = np.exp(logits - logits.max(axis=1, keepdims=True))
        out += float(p) * weights / weights.sum(axis=1, keepdims=True)
    return out


def attention_matrix(prior, length: int, *, exact: bool = False):
    """The row-stochastic Step-0 matrix A of ``prior``, dense.

    Args:
      prior: one of :mod:`.priors`.
      length: L >= 1.
      exact: a list of lists of ``Fraction`` (uniform priors only; ALiBi is
        irrational); else a float64 array [L, L].

    >>> attention_matrix(PrefixLM(2), 3)
    array([[0.5       , 0.5       , 0.        ],
           [0.5       , 0.5       , 0.        ],
           [0.33333333, 0.33333333, 0.33333333]])
    """
    prior = check_prior(prior, length)
    exact = check_bool_like("exact", exact)
    if isinstance(prior, Content):
        if exact:
            raise ValueError("exact=True is not available for Content priors: their weights e^(score) are irrational")
        if prior.layers > 1:
            raise ValueError(f"this Content prior has {prior.layers} layers; use content_matrix(prior, length, layer)")
        return content_matrix(prior, length)
    heads = prior.n_heads if isinstance(prior, ALiBi) and not exact else 0
    _costs.check_dense("attention_matrix", length, exact=exact, copies=6.0, heads=heads,
                       per_entry_ns=3000.0 if exact else 30.0)
    if isinstance(prior, ALiBi):
        if exact:
            raise ValueError("exact=True is not available for ALiBi: its weights e^(-m) are irrational")
        i, j = np.indices((length, length))
        heads = []
        for m in prior.float_slopes():
            with np.errstate(over="ignore"):  # a huge slope: -m (i - j) = -inf off the diagonal, a one-hot head
                logits = np.where(j <= i, -m * (i - j), -np.inf)
            weights = np.exp(logits - logits.max(axis=1, keepdims=True))
            heads.append(weights / weights.sum(axis=1, keepdims=True))
        return np.mean(heads, axis=0)
    mask = allowed_mask(prior, length)
    counts = mask.sum(axis=1)
    if exact:
        return [[Fraction(int(mask[r, c]), int(counts[r])) for c in range(length)] for r in range(length)]
    return mask / counts[:, None]
