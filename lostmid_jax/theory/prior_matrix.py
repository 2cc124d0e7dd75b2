"""Dense L x L Step-0 attention matrices of the priors (small L, reference use).

The structured operators of :mod:`.prior_ops` never form these; they are the
independent route for checks and the baseline for benchmarks. Uniform priors
are A = mask / mask.sum(1) from the allowed sets of :mod:`.priors`; ALiBi is
the head average of softmax_j(-m_h (i - j)) over j <= i.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..validation import check_bool_like
from . import _costs
from .priors import ALiBi, Bidirectional, Chunks, PrefixLM, SlidingWindow, Sinks, check_prior


def allowed_mask(prior, length: int) -> np.ndarray:
    """Boolean [L, L] mask, True where query i may attend to key j (0-based).

    >>> allowed_mask(SlidingWindow(2), 3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [0, 1, 1]])
    """
    prior = check_prior(prior, length)
    if isinstance(prior, ALiBi):
        raise ValueError("prior ALiBi has no 0/1 mask (its weights are not uniform); use attention_matrix")
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
