"""Structured sums that the row operators of the masks share, in any arithmetic ``ops``.

``ops`` is one of theory's arithmetics (:mod:`lostmid_jax.theory._arith`:
float64, log space, exact / mpmath / arb fields); the sums only add and
multiply nonnegative terms, so no backend meets cancellation. 0-based
indices, arrays [L].

Window sums use the van Herk / Gil-Werman split into blocks of w: a window
[j, j+w-1] is the suffix of j's block plus the prefix of the next block,
two sums of positive terms, so no suffix-sum differences (no cancellation)
and O(L) for any w.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def positions(length: int) -> np.ndarray:
    """1..L."""
    return np.arange(1, length + 1)


def suffix(x: np.ndarray, ops) -> np.ndarray:
    """s_k = sum_{i >= k} x_i (0-based), [L] -> [L]."""
    return ops.accumulate(x[::-1])[::-1]


def window_sums(u: np.ndarray, width: int, ops) -> np.ndarray:
    """out_k = sum_{i=k}^{min(L, k+w)-1} u_i (0-based), [L] -> [L], in O(L).

    >>> from lostmid_jax.theory._arith import FloatOps
    >>> window_sums(np.arange(1.0, 6.0), 2, FloatOps())
    array([3., 5., 7., 9., 5.])
    """
    length = u.size
    if width >= length:
        return suffix(u, ops)
    n_blocks = -(-length // width) + 1  # room for the block after the last
    padded = np.concatenate([u, ops.full(n_blocks * width - length, ops.zero)]).reshape(n_blocks, width)
    head = ops.accumulate(padded, axis=1).reshape(-1)  # sums from a block's start
    tail = ops.accumulate(padded[:, ::-1], axis=1)[:, ::-1].reshape(-1)  # sums to a block's end
    k = np.arange(length)
    rest = head[k + width - 1]
    rest[k % width == 0] = ops.zero  # a window starting a block is that whole block
    return ops.add(tail[:length], rest)


def geometric_window_gather(u: np.ndarray, w: int, m, ops, powers: np.ndarray) -> np.ndarray:
    """G_k = sum_{i=k}^{min(L, k+w)-1} u_i q^(i-k), q = e^(-m) (0-based), in O(L).

    The split of :func:`window_sums` with geometric weights: a window is the
    suffix T of its block plus, from the next block's start b, the prefix
    P[t] = sum_{i=b}^{t} u_i q^(i-b) scaled by q^(b-k); every term is a
    product of factors <= 1, no subtraction. ``powers``: q^0..q^w.
    """
    length = u.size
    if w >= length:
        return ops.geometric_suffix(u, m)
    n_blocks = -(-length // w) + 1
    padded = np.concatenate([u, ops.full(n_blocks * w - length, ops.zero)]).reshape(n_blocks, w)
    tail = ops.geometric_suffix_rows(padded, m).reshape(-1)
    head = ops.accumulate(ops.mul(padded, powers[None, :w]), axis=1).reshape(-1)
    k = np.arange(length)
    rest = ops.mul(head[k + w - 1], powers[w - k % w])  # b - k = w - k mod w
    rest[k % w == 0] = ops.zero  # a window starting a block is that whole block
    return ops.add(tail[:length], rest)


def causal_geometric(m, ops) -> tuple[Callable, Callable]:
    """(forward, gather) of ALiBi weights q^|i-j| over the causal keys: two geometric scans."""
    return (lambda g: ops.geometric_suffix(g[::-1], m)[::-1]), (lambda u: ops.geometric_suffix(u, m))


def uniform_operator(counts: np.ndarray, ops, gather: Callable) -> Callable:
    """r -> gather(r / c) for a uniform prior with row sizes c [L]."""
    inv = ops.recip(counts)
    return lambda r: gather(ops.mul(r, inv))
