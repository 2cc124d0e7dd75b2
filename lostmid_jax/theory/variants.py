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
    positionwise_row  position-wise Jacobians too: J_l = D_l (I + A (x) G_l), D_l block-diagonal
                      over positions with blocks I + K_{l,i} (the MLP and its norm at position i),
                      K_{l,i} independent, zero mean, E K^T K = k_{l,i}^2 I. With
                      T_l[i, i'] = E tr(J_l[i, j]^T J_l[i', j]) / D (J_l the product of blocks 1..l)

                          T_l = (1 1^T + diag(k_l^2)) o (T_{l-1} + g_l^2 A T_{l-1} A^T),  T_0 = e_j e_j^T,

                      exactly (paths through different positions i != i' keep only the identity
                      of D_l; coinciding ones gain 1 + k_{l,i}^2), and E ||J_{L,j}||_F^2 / D = T_H[L, L].
                      Every j at once from the adjoint S_H = e_L e_L^T,
                      S_{l-1} = C_l o S_l + g_l^2 A^T (C_l o S_l) A (C_l = 1 1^T + diag(k_l^2)),
                      E ||J_{L,j}||_F^2 / D = S_0[j, j]: O(H L^2) with the row operator.
                      Weight-shared MLPs: K_{l,i} = W_2 diag(phi'(z_i)) W_1 N_i shares W_1, W_2
                      across positions, so E K_{l,i}^T K_{l,i'} = kappa_l[i, i'] I with the Gram
                      kappa_l[i, i'] = E tr(K_{l,i}^T K_{l,i'}) / D, not zero for i != i' (the gates
                      overlap). Then, exactly (W_2 zero mean, left-isotropic), C_l = 1 1^T + kappa_l;
                      the diagonal model is kappa_l = diag(k_l^2). :func:`positionwise_sq_norms`
                      takes either.

All rows are returned unnormalized (every comparison normalizes). The powers
(A^k)[L, :] come from the structured row operator r -> r A (O(L) per power,
:mod:`.prior_ops`); the dense matrix powers of :func:`.prior_matrix.attention_matrix`
are the independent route the tests check against. Which variant a
measurement is scored against, and the fitted constant a, are
:mod:`lostmid_jax.analysis.theory_variants`.
"""

from __future__ import annotations

import numpy as np

from ..resources import check_budget
from ..validation import check_int
from . import _costs
from ._arith import FloatOps
from .prior_ops import row_operator
from ..masks import Causal, check_prior

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


def _layer_gains(name: str, values, depth: int | None, length: int | None) -> np.ndarray:
    """[H] or [H, L] finite values >= 0 as [H, L] (a [H] array repeated over positions)."""
    g = np.asarray(values, np.float64)
    if g.ndim not in (1, 2) or g.size == 0 or not np.all(np.isfinite(g)) or np.any(g < 0):
        raise ValueError(f"{name} must be a finite [H] or [H, L] array >= 0 with H >= 1, got shape {g.shape}")
    if depth is not None and g.shape[0] != depth:
        raise ValueError(f"{name} must have H = {depth} rows (one per layer), got shape {g.shape}")
    if length is not None and g.ndim == 2 and g.shape[1] != length:
        raise ValueError(f"{name} must have L = {length} columns (one per position), got shape {g.shape}")
    return g if g.ndim == 2 else np.repeat(g[:, None], 1 if length is None else length, axis=1)


def _position_grams(values, depth: int, length: int) -> np.ndarray:
    """mlp_gains_sq as C_l - 1 1^T: [H] or [H, L] gains -> diagonal Grams, [H, L, L] Grams as given.

    A Gram kappa_l [L, L] must be finite and symmetric with a diagonal >= 0 (a measured one is
    positive semi-definite up to probe noise; that is not required).
    """
    k = np.asarray(values, np.float64)
    if k.ndim != 3:
        return _layer_gains("mlp_gains_sq", k, depth, length)
    if k.shape != (depth, length, length) or not np.all(np.isfinite(k)):
        raise ValueError(f"mlp_gains_sq as Grams must be a finite [H, L, L] = [{depth}, {length}, {length}] "
                         f"array, got shape {k.shape}")
    diag = np.diagonal(k, axis1=1, axis2=2)
    tol = 1e-12 * max(1.0, np.abs(diag).max())
    if np.any(diag < 0) or not np.allclose(k, np.swapaxes(k, 1, 2), rtol=1e-6, atol=tol):
        raise ValueError("mlp_gains_sq as Grams must be symmetric per layer with a diagonal >= 0")
    return k


def positionwise_sq_norms(length: int, gains_sq, mlp_gains_sq, *, prior=Causal()) -> np.ndarray:
    """E ||J_{L,j}||_F^2 / D for J = prod_l D_l (I + A (x) G_l): [L], every j from one adjoint recursion.

    The model and the recursion are in the module docstring: S_H = e_L e_L^T, then for l = H..1
    S <- C_l o S + A_l^T (C_l o S) A_l with C_l = 1 1^T + kappa_l and A_l = A diag(g_l)
    (g_l(j) the branch gain at key j, the same for every key when ``gains_sq`` is [H]); the
    result is diag(S_0). kappa_l = diag(k_l^2) for position-wise Jacobians independent across
    positions, or the measured Gram kappa_l[i, i'] = E tr(K_{l,i}^T K_{l,i'}) / D of a
    weight-shared MLP. O(H L^2) time and O(L^2) memory besides a given Gram ([H, L, L]: 8 H L^2
    bytes): A enters only through the structured row operator r -> r A (2 L applications per
    layer). With kappa = 0 it is the square of :func:`random_matrix_row` ([H] gains) or
    :func:`key_gain_row` ([H, L] gains).

    Args:
      length: L >= 1.
      gains_sq: [H] branch gains g_l^2 = E ||G_l||_F^2 / D, or [H, L] per key g_l^2(j).
      mlp_gains_sq: [H] or [H, L] position-wise gains k_{l,i}^2 = E ||K_{l,i}||_F^2 / D (the
        MLP-and-norm Jacobian I + K_{l,i} at layer l and position i; [H] means the same at every i),
        or [H, L, L] Grams kappa_l (symmetric, diagonal k_{l,i}^2).
      prior: the Step-0 attention matrix A (validated for L; a Content prior with one operator per
        layer needs H of them).

    Raises:
      ValueError: naming ``length``, ``gains_sq``, ``mlp_gains_sq`` or ``prior``.
    """
    length = check_int("length", length, 1)
    g2 = _layer_gains("gains_sq", gains_sq, None, length)
    depth = g2.shape[0]
    prior = check_prior(prior, length)
    mult, calls, _, _ = _costs._prior_terms(prior, length)
    check_budget(f"length={length}, depth={depth} (positionwise, O(depth length^2))",
                 nbytes=4.0 * _costs.FLOAT_BYTES * float(length) ** 2,
                 operations=depth * 2.0 * length * (_costs.CALL_NS * (1 + calls) + length * mult * 20.0))
    k2 = _position_grams(mlp_gains_sq, depth, length)
    ops = FloatOps()
    op = row_operator(prior, length, ops)
    operators = list(op) if isinstance(op, (list, tuple)) else [op] * depth
    if len(operators) != depth:
        raise ValueError(f"prior has {len(operators)} per-layer operators, gains_sq has H = {depth} layers")
    s = np.zeros((length, length))
    s[-1, -1] = 1.0
    diag = np.arange(length)
    for l in reversed(range(depth)):  # layer H meets e_L first
        if k2.ndim == 3:
            s = s + k2[l] * s  # C_l o S, C_l = 1 1^T + kappa_l
        else:
            s[diag, diag] *= 1.0 + k2[l]  # C_l o S, kappa_l = diag(k_l^2)
        g = np.sqrt(g2[l])
        x = np.stack([operators[l](r) for r in s])  # S A
        sandwich = np.stack([operators[l](c) for c in x.T]).T  # (X^T A)^T = A^T S A (S symmetric)
        s = s + sandwich * g[:, None] * g[None, :]
    return np.array(s[diag, diag])


def positionwise_row(length: int, gains_sq, mlp_gains_sq, *, prior=Causal()) -> np.ndarray:
    """sqrt(E ||J_{L,j}||_F^2 / D) with position-wise Jacobians: [L] (:func:`positionwise_sq_norms`, same arguments)."""
    return np.sqrt(positionwise_sq_norms(length, gains_sq, mlp_gains_sq, prior=prior))


def jacobian_alphas(gains_sq) -> np.ndarray:
    """a_l = g_l / (1 + g_l) with g_l = sqrt(g_l^2): [H] in [0, 1)."""
    g = np.sqrt(_gains("gains_sq", gains_sq))
    return g / (1.0 + g)


__all__ = ["EXACT_LIMIT", "elementary_symmetric", "jacobian_alphas", "key_gain_row", "positionwise_row",
           "positionwise_sq_norms", "power_rows", "random_matrix_row"]
