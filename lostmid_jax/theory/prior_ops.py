"""Structured row operators r -> r A for every Step-0 prior, in O(L) per head.

(r A)_j = sum_i r_i A[i, j]. For a uniform prior A[i, j] = 1/c_i on the
allowed set, so with u_i = r_i / c_i (c_i = |S_i|, 1-based i, j):

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
                    (:mod:`.content_ops`): O(L) per head, dense only for ALiBi
                    with a mask other than causal; one operator per layer.

Window sums use the van Herk / Gil-Werman split into blocks of w: a window
[j, j+w-1] is the suffix of j's block plus the prefix of the next block,
two sums of positive terms, so no suffix-sum differences (no cancellation)
and O(L) per layer for any w. Everything is written against the arithmetic
of :mod:`._arith`, so one code path serves float64, log space and the
exact / mpmath / arb fields.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
import numpy as np

from .content import Content
from .priors import ALiBi, Bidirectional, Causal, Chunks, PrefixLM, SlidingWindow, Sinks


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


def _positions(length: int) -> np.ndarray:
    return np.arange(1, length + 1)


def _uniform(counts: np.ndarray, ops, gather: Callable) -> Callable:
    """r -> gather(r / c) for a uniform prior with row sizes c [L]."""
    inv = ops.recip(counts)
    return lambda r: gather(ops.mul(r, inv))


def _causal(prior: Causal, length: int, ops) -> Callable:
    return _uniform(_positions(length), ops, mask_gather(prior, length, ops))


def _bidirectional(prior: Bidirectional, length: int, ops) -> Callable:
    inv = ops.recip(np.array([length]))[0]
    return lambda r: ops.full(length, ops.mul(ops.total(r), inv))


def _sliding_window(prior: SlidingWindow, length: int, ops) -> Callable:
    w = min(prior.width, length)  # w >= L is causal (and a huge w stays a Python int)
    return _uniform(np.minimum(_positions(length), w), ops, mask_gather(prior, length, ops))


def _chunks(prior: Chunks, length: int, ops) -> Callable:
    counts = np.concatenate([np.arange(1, n + 1) for n in prior.lengths])
    return _uniform(counts, ops, mask_gather(prior, length, ops))


def _prefix_lm(prior: PrefixLM, length: int, ops) -> Callable:
    return _uniform(np.maximum(_positions(length), prior.prefix), ops, mask_gather(prior, length, ops))


def _sinks(prior: Sinks, length: int, ops) -> Callable:
    s, w = prior.count, prior.window
    if w is None or w >= length:
        return _causal(Causal(), length, ops)
    i = _positions(length)
    return _uniform(np.minimum(i, w) + np.maximum(0, np.minimum(s, i - w)), ops, mask_gather(prior, length, ops))


def _alibi(prior: ALiBi, length: int, ops) -> Callable:
    if prior.slopes is None:
        slopes = [ops.pow2(e) for e in prior.slope_values()]  # exact exponents of the slope rule
    else:
        slopes = [ops.param(m) for m in prior.slopes]
    norms = [ops.geometric_recip_norm(m, length) for m in slopes]
    inv_heads = ops.recip(np.array([prior.n_heads]))[0]

    def apply(r):
        heads = [ops.geometric_suffix(ops.mul(r, z), m) for m, z in zip(slopes, norms)]
        return ops.mul(functools.reduce(ops.add, heads), inv_heads)

    return apply


def mask_gather(prior, length: int, ops) -> Callable[[np.ndarray], np.ndarray]:
    """u -> G(u), G(u)_j = sum_{i : j in S_i} u_i (the transposed mask sum) of a uniform prior, O(L)."""
    if isinstance(prior, Causal) or isinstance(prior, Sinks) and (prior.window is None or prior.window >= length):
        return lambda u: suffix(u, ops)
    if isinstance(prior, Bidirectional):
        return lambda u: ops.full(length, ops.total(u))
    if isinstance(prior, SlidingWindow):
        w = min(prior.width, length)
        return lambda u: window_sums(u, w, ops)
    if isinstance(prior, Chunks):
        ends = np.cumsum(prior.lengths)
        starts = ends - np.asarray(prior.lengths)
        return lambda u: np.concatenate([suffix(u[s:e], ops) for s, e in zip(starts, ends)])
    if isinstance(prior, PrefixLM):
        n = prior.prefix

        def gather(u):
            out = suffix(u, ops)
            out[:n] = out[0]  # every query sees the whole prefix
            return out

        return gather
    s, w = prior.count, prior.window  # Sinks with a window shorter than L
    n_extra = max(0, min(s, length - w))  # sinks j that queries beyond their window still see

    def gather(u):
        out = window_sums(u, w, ops)
        if n_extra:
            out[:n_extra] = ops.add(out[:n_extra], suffix(u, ops)[w:w + n_extra])
        return out

    return gather


def mask_forward(prior, length: int, ops) -> Callable[[np.ndarray], np.ndarray]:
    """g -> F(g), F(g)_i = sum_{j in S_i} g_j (the row sums of a uniform prior weighted by g), O(L)."""
    if isinstance(prior, Causal) or isinstance(prior, Sinks) and (prior.window is None or prior.window >= length):
        return lambda g: ops.accumulate(g)
    if isinstance(prior, Bidirectional):
        return lambda g: ops.full(length, ops.total(g))
    if isinstance(prior, SlidingWindow):
        w = min(prior.width, length)
        return lambda g: window_sums(g[::-1], w, ops)[::-1]
    if isinstance(prior, Chunks):
        ends = np.cumsum(prior.lengths)
        starts = ends - np.asarray(prior.lengths)
        return lambda g: np.concatenate([ops.accumulate(g[s:e]) for s, e in zip(starts, ends)])
    if isinstance(prior, PrefixLM):
        n = prior.prefix

        def forward(g):
            out = ops.accumulate(g)
            if n:
                out[:n] = out[n - 1]  # queries 1..n see keys 1..n
            return out

        return forward
    s, w = prior.count, prior.window
    i = np.arange(w + 1, length + 1)  # queries past their first window: + sinks 1..min(s, i - w)
    k = np.minimum(s, i - w)
    i, k = i[k >= 1], k[k >= 1]

    def forward(g):
        out = np.array(window_sums(g[::-1], w, ops)[::-1])
        if i.size:
            out[i - 1] = ops.add(out[i - 1], ops.accumulate(g)[k - 1])
        return out

    return forward


_BUILDERS = {
    Causal: _causal,
    Bidirectional: _bidirectional,
    SlidingWindow: _sliding_window,
    Chunks: _chunks,
    PrefixLM: _prefix_lm,
    Sinks: _sinks,
    ALiBi: _alibi,
}


def _content(prior, length: int, ops):
    from .content_ops import layer_operators

    operators = layer_operators(prior, length, ops)
    return operators[0] if len(operators) == 1 else operators


def row_operator(prior, length: int, ops) -> Callable[[np.ndarray], np.ndarray]:
    """The map r -> r A for a validated ``prior`` at length L, in ``ops`` arithmetic.

    Args:
      prior: one of the priors in :mod:`.priors` (validated for L).
      length: L.
      ops: a :class:`._arith.FloatOps`, :class:`._arith.LogOps` or
        :class:`._arith.FieldOps`.

    Returns:
      A function [L] -> [L]; precomputed row sizes / ALiBi norms are reused
      across calls. For a :class:`.content.Content` prior with per-layer
      values, a list of such functions, one per layer.
    """
    if isinstance(prior, Content):
        return _content(prior, length, ops)
    return _BUILDERS[type(prior)](prior, length, ops)


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
