"""Row operators r -> r A_l of a :class:`.content.Content` prior, one per layer, in any arithmetic.

Per head h (dropping l), with g_j = e^{(c_j - max c) / T}, m' = m / T and
b - 1 = e^{diag / T} - 1 (the key-score shift by max c cancels in each row):

    K[i, j] = g_j e^{-m' |i - j|} (1 + (b - 1) [i = j])     on j in S_i
    Z_i     = F(g)_i + (b - 1) g_i                           (row sums)
    (r A)_j = sum_h p_h g_j [ G(r / Z)_j + (b - 1) (r / Z)_j ]

F and G are the mask's weighted row sums and transposed sums
(:meth:`.base.Mask.forward`, :meth:`.base.Mask.gather`) when
m' = 0, and the geometric scans of ALiBi (:meth:`.base.Mask.alibi_sums`: causal
scans, windowed ones by a block split, per chunk, both directions for the
bidirectional mask): O(L) per head. ALiBi with the prefix-LM mask builds K
densely (O(L^2) per head; :attr:`.content.Content.dense`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from ..validation import check_int_like
from ._costs import check_dense
from .alibi_slopes import slope_exponents


class _FloatParams:
    """The two parameter maps of theory's float64 arithmetic (``FloatOps.param``, ``FloatOps.pow2``)."""

    param = staticmethod(float)

    @staticmethod
    def pow2(exponent) -> float:
        return 2.0 ** float(exponent)


def _slopes(values: dict, prior, ops) -> list:
    """The layer's slopes m' = m / T in ``ops`` (plain numbers or field numbers); None for a head without ALiBi."""
    temperature = ops.param(prior.temperature)
    if values["slopes"] is None:
        return [None] * prior.heads
    if isinstance(values["slopes"], str):
        return [ops.pow2(e) / temperature for e in slope_exponents(prior.heads, values["slopes"])]
    return [None if m == 0 else ops.param(m) / temperature for m in values["slopes"]]


def _key_weights(prior, length: int, ops):
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


def alibi_sums(mask, length: int, m, ops) -> tuple[Callable, Callable] | None:
    """(forward, gather) of ALiBi weights q^|i-j| over a mask's allowed keys, O(L) per call
    (:meth:`.base.Mask.alibi_sums`); None for PrefixLM (dense there).

    forward(g)_i = sum_{j in S_i} g_j q^|i-j|,  gather(u)_j = sum_{i : j in S_i} u_i q^|i-j|.
    """
    return mask.alibi_sums(length, m, ops)


def _head(length: int, g, m, bonus, temperature, mask, ops) -> Callable:
    """r -> g * (G(r / Z) + (b - 1) r / Z) for one head (g None: all ones; m None: no ALiBi), O(L)."""
    weights = ops.full(length, ops.one) if g is None else g
    if m is None:
        forward, gather = mask.forward(length, ops), mask.gather(length, ops)
    else:  # ALiBi: the separable geometric scans
        forward, gather = mask.alibi_sums(length, m, ops)
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
    dtype = object if hasattr(ops, "field") else np.float64
    rows, cols = np.nonzero(mask.allowed(length))
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


def layer_operators(prior, length: int, ops) -> list[Callable]:
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


def content_matrix(prior, length: int, layer: int = 0) -> np.ndarray:
    """float64 [L, L] matrix of layer ``layer`` (0-based) of a validated Content prior, dense.

    Head average with weights p_h of softmax over the allowed keys of
    (base + diag [i = j] + c_j - m |i - j|) / T (:mod:`.content`).
    """
    layer = check_int_like("layer", layer, 0, prior.layers - 1)
    check_dense("attention_matrix", length, exact=False, copies=6.0, heads=prior.heads, per_entry_ns=30.0)
    values = prior.layer_values(layer)
    allowed = prior.mask.allowed(length)
    i, j = np.indices((length, length))
    t = float(prior.temperature)
    scores = np.zeros(length) if prior.scores is None else np.array([float(c) for c in prior.scores])
    out = np.zeros((length, length))
    for p, m, d, b in zip(prior.weights(), _slopes(values, prior, _FloatParams()), values["diag"], values["base"]):
        logits = float(b) / t + float(d) / t * (i == j) + scores[None, :] / t - (0.0 if m is None else m) * np.abs(i - j)
        logits = np.where(allowed, logits, -np.inf)
        weights = np.exp(logits - logits.max(axis=1, keepdims=True))
        out += float(p) * weights / weights.sum(axis=1, keepdims=True)
    return out
