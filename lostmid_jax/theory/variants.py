"""Rows of random-matrix path sums, and the powers of A they are built from (Step-0 theory variants).

Shapes: L positions (1-based j, x = j/L), H depth, K = H + 1 path lengths.

A pre-norm block maps a perturbation of the residual stream as
J_l = I + A (x) G_l (identity path plus the attention branch; A the Step-0
attention matrix, M for causal uniform attention, and G_l [D, D] the branch
Jacobian per key). The paper (arXiv:2603.10123) replaces G_l by a scalar,
N_l = (1 - a_l) I + a_l A. Measured branch gains g_l^2 = ||G_l||_F^2 / D give:

    jacobian_alphas   a_l = g_l / (1 + g_l): I + g_l A rescaled to unit row sum
    random_matrix_row G_l independent and zero-mean: every cross term of the path sum
                      J_{L,j} = sum_S (A^|S|)[L, j] prod_{l in S} G_l vanishes in expectation, so

                          E ||J_{L,j}||_F^2 / D = sum_{k=0}^{H} e_k(g_1^2, ..., g_H^2) ((A^k)[L, j])^2

                      with e_k the elementary symmetric polynomials; the row is the square
                      root (the profile is a norm, not a squared norm).
    key_gain_row      the same with a gain per layer and key, G_l(j) = c_l(j) G_l
                      (g_l^2(j) = g_l^2 c_l(j)^2): the paths through one layer subset S
                      still share their matrices, so

                          E ||J_{L,j}||_F^2 / D = sum_S prod_{l in S} g_l^2 (v_S)_j^2,
                          v_S = e_L prod_{l in S, from H down to 1} (A diag(c_l)),

                      summed over all 2^H subsets when 2^H L <= 2^22, else estimated from
                      ``samples`` subsets drawn with P(l in S) = g_l^2 / (1 + g_l^2): the mean of
                      (v_S)_j^2 over the draws times prod_l (1 + g_l^2) is unbiased for the sum.

All rows are returned unnormalized (every comparison normalizes). The powers
(A^k)[L, :] come from the structured row operator r -> r A (O(L) per power,
:mod:`.prior_ops`); the dense matrix powers of :func:`.prior_matrix.attention_matrix`
are the independent route the tests check against. Which variant a
measurement is scored against, and the fitted constant a, are
:mod:`lostmid_jax.analysis.theory_variants`.
"""

from __future__ import annotations

import numpy as np

from ..validation import check_int
from ._arith import FloatOps
from .prior_ops import row_operator
from .priors import Causal, check_prior

EXACT_LIMIT = 2**22  # 2^H L entries summed exactly; beyond, Monte Carlo over layer subsets


def _gains(name: str, values) -> np.ndarray:
    g = np.asarray(values, np.float64)
    if g.ndim != 1 or g.size < 1 or not np.all(np.isfinite(g)) or np.any(g < 0):
        raise ValueError(f"{name} must be a 1-D array of H >= 1 finite values >= 0, got shape {g.shape}")
    return g


def power_rows(length: int, depth: int, *, prior=Causal()) -> np.ndarray:
    """(A^k)[L, :] for k = 0..H: [H + 1, L] float64 (row k = e_L A^k; row 0 = e_L)."""
    length = check_int("length", length, 1)
    depth = check_int("depth", depth, 0)
    prior = check_prior(prior, length)
    ops = FloatOps()
    op = row_operator(prior, length, ops)
    rows = [ops.unit(length)]
    for _ in range(depth):
        rows.append(op(rows[-1]))
    return np.asarray(np.stack(rows), np.float64)


def elementary_symmetric(values) -> np.ndarray:
    """e_0..e_n of n values >= 0: [n + 1] (e_0 = 1; e_k = sum over k-subsets of the products).

    >>> elementary_symmetric([1.0, 2.0, 3.0])
    array([ 1.,  6., 11.,  6.])
    """
    v = _gains("values", values)
    e = np.zeros(v.size + 1)
    e[0] = 1.0
    for x in v:  # e_k <- e_k + x e_{k-1}, k descending (positive terms only)
        e[1:] = e[1:] + x * e[:-1]
    return e


def random_matrix_row(length: int, gains_sq, *, prior=Causal()) -> np.ndarray:
    """sqrt(sum_k e_k(g^2) ((A^k)[L, j])^2): [L], the profile of independent zero-mean branch Jacobians.

    Args:
      length: L >= 1.
      gains_sq: [H] per-layer g_l^2 = ||G_l||_F^2 / D >= 0 (measured, not fitted).
      prior: the Step-0 attention matrix A (validated for L).
    """
    g2 = _gains("gains_sq", gains_sq)
    powers = power_rows(length, g2.size, prior=prior)
    return np.sqrt(elementary_symmetric(g2) @ (powers * powers))


def key_gain_row(gains_key, *, prior=Causal(), samples: int = 4096, seed: int = 0) -> np.ndarray:
    """sqrt(sum_S prod_{l in S} g_l^2 (v_S)_j^2): [L], the random-matrix row with per-key gains (module docstring).

    Args:
      gains_key: [H, L] measured g_l^2(j) >= 0 (layer l = 1..H in rows, key j = 1..L in columns).
      prior: the Step-0 attention matrix A (validated for L).
      samples: layer subsets drawn when 2^H L > 2^22 (the exact sum otherwise).
      seed: random seed of those draws.
    """
    g2 = np.asarray(gains_key, np.float64)
    if g2.ndim != 2 or g2.size == 0 or not np.all(np.isfinite(g2)) or np.any(g2 < 0):
        raise ValueError(f"gains_key must be a finite [H, L] array >= 0, got shape {g2.shape}")
    depth, length = g2.shape
    samples = check_int("samples", samples, 1)
    prior = check_prior(prior, length)
    ops = FloatOps()
    op, unit = row_operator(prior, length, ops), ops.unit(length)  # unit: e_L
    mean = g2.mean(axis=1)  # g_l^2
    c = np.sqrt(np.divide(g2, mean[:, None], out=np.zeros_like(g2), where=mean[:, None] > 0))  # c_l(j)
    if 2**depth * length <= EXACT_LIMIT:
        vecs, weights = unit[None], np.ones(1)
        for l in reversed(range(depth)):  # e_L J_H ... J_1: layer H acts first on the row
            moved = np.stack([op(v) for v in vecs]) * c[l][None]
            vecs, weights = np.concatenate([vecs, moved]), np.concatenate([weights, weights * mean[l]])
        return np.sqrt(weights @ (vecs * vecs))
    rng = np.random.default_rng(seed)
    keep = rng.random((samples, depth)) < (mean / (1.0 + mean))[None]
    total = np.zeros(length)
    for row in keep:
        v = unit
        for l in reversed(range(depth)):
            if row[l]:
                v = op(v) * c[l]
        total += v * v
    return np.sqrt(total / samples * np.prod(1.0 + mean))


def jacobian_alphas(gains_sq) -> np.ndarray:
    """a_l = g_l / (1 + g_l) with g_l = sqrt(g_l^2): [H] in [0, 1)."""
    g = np.sqrt(_gains("gains_sq", gains_sq))
    return g / (1.0 + g)


__all__ = ["EXACT_LIMIT", "elementary_symmetric", "jacobian_alphas", "key_gain_row", "power_rows",
           "random_matrix_row"]
