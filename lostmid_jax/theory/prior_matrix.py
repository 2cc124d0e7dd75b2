"""Dense L x L Step-0 attention matrices of the priors (small L, reference use).

The structured operators (``prior.row_operator``) never form these; they are
the independent route for checks and the baseline for benchmarks. Each prior
class of :mod:`lostmid_jax.masks` builds its own: uniform priors are
A = mask / mask.sum(1) from ``allows``; ALiBi is the head average of
softmax_j(-m_h (i - j)) over j <= i; Content the softmax of its scores.
"""

from __future__ import annotations

import numpy as np

from ..masks import PrefixLM, SlidingWindow, check_prior  # noqa: F401  (doctests)
from ..validation import check_bool_like


def allowed_mask(prior, length: int) -> np.ndarray:
    """Boolean [L, L] mask, True where query i may attend to key j (0-based).

    >>> allowed_mask(SlidingWindow(2), 3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [0, 1, 1]])
    """
    prior = check_prior(prior, length)
    if not prior.uniform:
        raise ValueError(f"prior {type(prior).__name__} has no 0/1 mask (its weights are not uniform); use attention_matrix")
    return prior.allowed(length)


def content_matrix(prior, length: int, layer: int = 0) -> np.ndarray:
    """float64 [L, L] matrix of layer ``layer`` (0-based) of a Content prior, dense.

    Head average with weights p_h of softmax over the allowed keys of
    (base + diag [i = j] + c_j - m |i - j|) / T (:mod:`lostmid_jax.masks.content`).
    """
    return check_prior(prior, length).layer_matrix(length, layer)


def attention_matrix(prior, length: int, *, exact: bool = False):
    """The row-stochastic Step-0 matrix A of ``prior``, dense.

    Args:
      prior: one of :mod:`lostmid_jax.masks`.
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
    return prior.attention_matrix(length, exact=exact)
