"""Structured row operators r -> r A for every Step-0 prior, in O(L) per head.

(r A)_j = sum_i r_i A[i, j]. Each prior class of :mod:`lostmid_jax.masks`
owns its operator (``prior.row_operator(length, ops)``): for a uniform
prior A[i, j] = 1/c_i on the allowed set, so with u_i = r_i / c_i
(c_i = |S_i|, 1-based i, j):

    Causal          (rA)_j = sum_{i >= j} u_i                     (suffix sum)
    Bidirectional   (rA)_j = sum_i r_i / L                        (constant)
    SlidingWindow   (rA)_j = sum_{i=j}^{min(L, j+w-1)} u_i,  c_i = min(i, w)
    Chunks          (rA)_j = sum_{i >= j, i in seg(j)} u_i        (suffix sum per segment)
    PrefixLM        (rA)_j = sum_{i >= max(j, 1)} u_i for j > n, sum_i u_i for j <= n,
                    c_i = max(i, n)
    Sinks (s, w)    (rA)_j = window sum as above + [j <= s] sum_{i >= j+w} u_i,
                    c_i = min(i, w) + max(0, min(s, i - w))
    ALiBi           (rA)_j = (1/n) sum_h s^h_j,  s^h_j = sum_{i >= j} (r_i / Z_i^h) e^(-m_h (i-j)),
                    a reverse linear scan s_j = u_j + e^(-m) s_{j+1} per head.
    Content         softmax of self bonus, key scores and ALiBi over a mask
                    (:mod:`lostmid_jax.masks.content_ops`): O(L) per head, dense only for
                    ALiBi with the prefix-LM mask; one operator per layer.

Window sums use the van Herk / Gil-Werman split (:mod:`lostmid_jax.masks._sums`),
so no suffix-sum differences and O(L) per layer for any w. Everything is
written against the arithmetic of :mod:`._arith`, so one code path serves
float64, log space and the exact / mpmath / arb fields.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..masks._sums import suffix, window_sums  # noqa: F401  (kept importable here)


def mask_gather(prior, length: int, ops) -> Callable[[np.ndarray], np.ndarray]:
    """u -> G(u), G(u)_j = sum_{i : j in S_i} u_i (the transposed mask sum) of a uniform prior, O(L)."""
    return prior.gather(length, ops)


def mask_forward(prior, length: int, ops) -> Callable[[np.ndarray], np.ndarray]:
    """g -> F(g), F(g)_i = sum_{j in S_i} g_j (the row sums of a uniform prior weighted by g), O(L)."""
    return prior.forward(length, ops)


def row_operator(prior, length: int, ops) -> Callable[[np.ndarray], np.ndarray]:
    """The map r -> r A for a validated ``prior`` at length L, in ``ops`` arithmetic.

    Args:
      prior: one of the priors in :mod:`lostmid_jax.masks` (validated for L).
      length: L.
      ops: a :class:`._arith.FloatOps`, :class:`._arith.LogOps` or
        :class:`._arith.FieldOps`.

    Returns:
      A function [L] -> [L]; precomputed row sizes / ALiBi norms are reused
      across calls. For a :class:`~lostmid_jax.masks.Content` prior with per-layer
      values, a list of such functions, one per layer.
    """
    return prior.row_operator(length, ops)


def rollout_row(length: int, schedule: tuple, operator, ops) -> np.ndarray:
    """r_0 = e_L, then r <- (1 - a_l) r + a_l (r A_l) for each layer: the last row of N_H ... N_1.

    ``operator``: one function r -> r A for every layer, or a list of H (one per
    layer). The row meets N_H first (e_L^T N_H ... N_1), which matters only
    for per-layer operators: with one A all N_l commute, and the layers run
    in order 1..H.
    """
    operators = operator if isinstance(operator, (list, tuple)) else None
    layers = list(enumerate(schedule))
    row = ops.unit(length)
    for layer, a in (layers if operators is None else layers[::-1]):
        if a == 0:
            continue
        new = operator(row) if operators is None else operators[layer](row)
        row = new if a == 1 else ops.mix(row, new, a)
    return row
