"""Row operators r -> r A_l of a :class:`.content.Content` prior, one per layer, in any arithmetic.

Per head h (dropping l), with g_j = e^{(c_j - max c) / T}, m' = m / T and
b - 1 = e^{diag / T} - 1 (the key-score shift by max c cancels in each row):

    K[i, j] = g_j e^{-m' |i - j|} (1 + (b - 1) [i = j])     on j in S_i
    Z_i     = F(g)_i + (b - 1) g_i                           (row sums)
    (r A)_j = sum_h p_h g_j [ G(r / Z)_j + (b - 1) (r / Z)_j ]

F and G are the mask's weighted row sums and transposed sums
(:func:`.prior_ops.mask_forward`, :func:`.prior_ops.mask_gather`) when
m' = 0, and the geometric scans of ALiBi (:func:`alibi_sums`: causal scans,
windowed ones by a block split, per chunk, both directions for the
bidirectional mask): O(L) per head. ALiBi with the prefix-LM mask builds K
densely (O(L^2) per head; :attr:`.content.Content.dense`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from .content import Content
from .priors import Bidirectional, Causal, Chunks, PrefixLM, SlidingWindow, Sinks
from .prior_ops import mask_forward, mask_gather


def _slopes(values: dict, prior: Content, ops) -> list:
    """The layer's slopes m' = m / T in ``ops`` (plain numbers or field numbers); None for a head without ALiBi."""
    from ..masks.alibi_slopes import slope_exponents

    temperature = ops.param(prior.temperature)
    if values["slopes"] is None:
        return [None] * prior.heads
    if isinstance(values["slopes"], str):
        return [ops.pow2(e) / temperature for e in slope_exponents(prior.heads, values["slopes"])]
    return [None if m == 0 else ops.param(m) / temperature for m in values["slopes"]]


def _key_weights(prior: Content, length: int, ops):
    """g_j = e^{(c_j - max c) / T} in ``ops``, or None for no key scores."""
    if prior.scores is None:
        return None
    top = ops.param(max(prior.scores))
    temperature = ops.param(prior.temperature)
    shifted = np.empty(length, dtype=object)
    shifted[:] = [(ops.param(c) - top) / temperature for c in prior.scores]
    if isinstance(top, float):
        shifted = shifted.astype(np.float64)
    return ops.exp(shifted)


def _bonus(bonus, temperature, ops):
    """(extra, combine): the diagonal term's |b - 1| and how it joins a sum (add for a bonus, sub for a penalty)."""
    if bonus == 0:
        return None, None
    d = ops.param(bonus) / temperature
    if bonus > 0:
        return ops.expm1(d), ops.add
    return ops.one_minus_exp(d), ops.sub


def _window_gather(u: np.ndarray, w: int, m, ops, powers: np.ndarray) -> np.ndarray:
    """G_k = sum_{i=k}^{min(L, k+w)-1} u_i q^(i-k), q = e^(-m) (0-based), in O(L).

    The van Herk / Gil-Werman split of :func:`.prior_ops.window_sums` with
    geometric weights: a window is the suffix T of its block plus, from the
    next block's start b, the prefix P[t] = sum_{i=b}^{t} u_i q^(i-b) scaled
    by q^(b-k); every term is a product of factors <= 1, no subtraction.
    ``powers``: q^0..q^w.
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


def alibi_sums(mask, length: int, m, ops) -> tuple[Callable, Callable]:
    """(forward, gather) of ALiBi weights q^|i-j| over a mask's allowed keys, O(L) per call.

    forward(g)_i = sum_{j in S_i} g_j q^|i-j|,  gather(u)_j = sum_{i : j in S_i} u_i q^|i-j|.
    Causal, SlidingWindow, Sinks, Chunks and Bidirectional masks; None for PrefixLM (dense there).
    """
    causal_gather = lambda u: ops.geometric_suffix(u, m)  # noqa: E731
    causal_forward = lambda g: ops.geometric_suffix(g[::-1], m)[::-1]  # noqa: E731
    window = getattr(mask, "width", getattr(mask, "window", None))
    if isinstance(mask, Causal) or isinstance(mask, (SlidingWindow, Sinks)) and (window is None or window >= length):
        return causal_forward, causal_gather
    if isinstance(mask, PrefixLM):
        return None
    if isinstance(mask, Chunks):
        ends = np.cumsum(mask.lengths)
        bounds = list(zip(ends - np.asarray(mask.lengths), ends))
        return (lambda g: np.concatenate([causal_forward(g[a:b]) for a, b in bounds]),
                lambda u: np.concatenate([causal_gather(u[a:b]) for a, b in bounds]))
    powers = ops.geometric_powers(m, length + 1)
    if isinstance(mask, Bidirectional):
        def both(x, first, second):  # first_i + q * second_{i+1} (second: the other direction, shifted)
            out = np.array(first(x))
            out[:-1] = ops.add(out[:-1], ops.mul(second(x)[1:], powers[1]))
            return out

        return (lambda g: both(g, causal_forward, lambda x: causal_gather(x)),
                lambda u: both(u[::-1], causal_forward, causal_gather)[::-1])
    w = window
    gather = lambda u: _window_gather(u, w, m, ops, powers)  # noqa: E731
    forward = lambda g: gather(g[::-1])[::-1]  # noqa: E731
    if isinstance(mask, SlidingWindow):
        return forward, gather
    s = mask.count  # Sinks(s, w), w < L: sink keys j <= s also seen by queries i >= j + w
    i = np.arange(w + 1, length + 1)
    k = np.minimum(s, i - w)
    i, k = i[k >= 1], k[k >= 1]
    n_extra = max(0, min(s, length - w))

    def sink_forward(g):
        out = np.array(forward(g))
        if i.size:
            out[i - 1] = ops.add(out[i - 1], ops.mul(causal_forward(g)[k - 1], powers[i - k]))
        return out

    def sink_gather(u):
        out = np.array(gather(u))
        if n_extra:
            out[:n_extra] = ops.add(out[:n_extra], ops.mul(causal_gather(u)[w:w + n_extra], powers[w]))
        return out

    return sink_forward, sink_gather


def _head(length: int, g, m, bonus, temperature, mask, ops) -> Callable:
    """r -> g * (G(r / Z) + (b - 1) r / Z) for one head (g None: all ones; m None: no ALiBi), O(L)."""
    weights = ops.full(length, ops.one) if g is None else g
    if m is None:
        forward, gather = mask_forward(mask, length, ops), mask_gather(mask, length, ops)
    else:  # ALiBi: the separable geometric scans
        forward, gather = alibi_sums(mask, length, m, ops)
    extra, combine = _bonus(bonus, temperature, ops)
    norm = forward(weights)
    if extra is not None:
        norm = combine(norm, ops.mul(weights, extra))
    inv = ops.inv(norm)

    def apply(r):
        u = ops.mul(r, inv)
        out = gather(u)
        if extra is not None:
            out = combine(out, ops.mul(u, extra))
        return out if g is None else ops.mul(out, g)

    return apply


def _dense_head(length: int, g, m, bonus, temperature, mask, ops) -> Callable:
    """r -> r K / Z with a dense [L, L] kernel in this arithmetic: ALiBi with a non-causal mask, O(L^2)."""
    from .prior_matrix import allowed_mask

    dtype = object if hasattr(ops, "field") else np.float64
    rows, cols = np.nonzero(allowed_mask(mask, length))
    d = ops.param(bonus) / temperature
    logits = np.array([-m * abs(a - b) + (d if a == b else 0) for a, b in zip(rows.tolist(), cols.tolist())], dtype=dtype)
    kernel = np.full((length, length), ops.zero, dtype=dtype)
    kernel[rows, cols] = ops.exp(logits)
    if g is not None:
        kernel = ops.mul(kernel, g[None, :])
    inv = ops.inv(np.array([ops.total(kernel[a]) for a in range(length)], dtype=dtype))

    def apply(r):
        u = ops.mul(r, inv)
        out = np.empty(length, dtype=dtype)
        out[:] = [ops.total(ops.mul(u, kernel[:, b])) for b in range(length)]
        return out

    return apply


def layer_operators(prior: Content, length: int, ops) -> list[Callable]:
    """One operator r -> r A_l per row of per-layer values (a single one when all layers are the same)."""
    g = _key_weights(prior, length, ops)
    temperature = ops.param(prior.temperature)
    raw = prior.weights()
    weights = [ops.scalar(p) for p in raw]
    operators = []
    for layer in range(prior.layers):
        values = prior.layer_values(layer)
        heads = []
        for h, m in enumerate(_slopes(values, prior, ops)):
            if raw[h] == 0:
                continue
            builder = _dense_head if m is not None and prior.dense else _head
            heads.append((weights[h], builder(length, g, m, values["diag"][h], temperature, prior.mask, ops)))
        operators.append(_average(heads, ops))
    return operators


def _average(heads: list, ops) -> Callable:
    def apply(r):
        return functools.reduce(ops.add, [ops.mul(h(r), p) for p, h in heads])

    return apply
