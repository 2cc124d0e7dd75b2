"""theory.variants: powers of A against dense matrix powers, e_k against subsets, the random-matrix row
against an explicit Monte-Carlo product of random block Jacobians."""

import itertools

import numpy as np
import pytest

from lostmid_jax import theory
from lostmid_jax.theory import variants as tv


@pytest.mark.parametrize("prior", [theory.Causal(), theory.SlidingWindow(3), theory.PrefixLM(2)])
def test_power_rows_match_dense_matrix_powers(prior):
    length, depth = 9, 5
    a = np.asarray(theory.attention_matrix(prior, length), np.float64)
    dense = [np.linalg.matrix_power(a, k)[-1] for k in range(depth + 1)]
    np.testing.assert_allclose(tv.power_rows(length, depth, prior=prior), np.stack(dense), rtol=1e-12, atol=1e-15)


def test_elementary_symmetric_against_subsets():
    v = np.array([0.3, 1.7, 0.05, 2.0, 0.9])
    e = tv.elementary_symmetric(v)
    for k in range(v.size + 1):
        brute = sum(np.prod(c) for c in itertools.combinations(v, k)) if k else 1.0
        assert e[k] == pytest.approx(brute, rel=1e-13)


def test_random_matrix_row_is_the_expected_norm_of_random_block_products():
    """E ||J_{L,j}||_F^2 / D for J = prod_l (I + M (x) G_l), G_l iid N(0, g_l^2 / D): Monte Carlo vs the formula."""
    rng = np.random.default_rng(0)
    length, width, g2 = 5, 6, np.array([0.8, 0.3, 1.5])
    m = np.asarray(theory.cesaro_matrix(length), np.float64)
    total = np.zeros(length)
    draws = 4000
    for _ in range(draws):
        jac = np.eye(length * width)
        for g in g2:
            G = rng.normal(0.0, np.sqrt(g / width), (width, width))
            jac = (np.eye(length * width) + np.kron(m, G)) @ jac
        last = jac[(length - 1) * width:]  # output block row of position L: [D, L D]
        total += (last.reshape(width, length, width) ** 2).sum(axis=(0, 2)) / width
    mc = np.sqrt(total / draws)
    np.testing.assert_allclose(mc, tv.random_matrix_row(length, g2), rtol=0.03)


def test_key_gains_reduce_to_the_layer_gains_and_sample_the_exact_sum():
    rng = np.random.default_rng(1)
    g2 = rng.uniform(0.1, 2.0, (5, 12))
    flat = np.repeat(g2.mean(axis=1)[:, None], 12, axis=1)
    np.testing.assert_allclose(tv.key_gain_row(flat), tv.random_matrix_row(12, g2.mean(axis=1)), rtol=1e-12)
    exact = tv.key_gain_row(g2)
    limit, tv.EXACT_LIMIT = tv.EXACT_LIMIT, 1  # force the Monte Carlo route
    try:
        sampled = tv.key_gain_row(g2, samples=20000, seed=3)
    finally:
        tv.EXACT_LIMIT = limit
    np.testing.assert_allclose(sampled, exact, rtol=0.03)


def test_key_gain_row_is_the_expected_norm_of_random_products_with_per_key_scales():
    """G_l(j) = c_l(j) G_l, G_l iid N(0, g_l^2 / D): Monte Carlo of the explicit block product vs the row."""
    rng = np.random.default_rng(2)
    length, width = 5, 6
    g2 = rng.uniform(0.2, 1.5, (3, length))  # g_l^2(j)
    m = np.asarray(theory.cesaro_matrix(length), np.float64)
    total = np.zeros(length)
    draws = 4000
    for _ in range(draws):
        jac = np.eye(length * width)
        for l in range(3):
            G = rng.normal(0.0, 1.0 / np.sqrt(width), (width, width))
            branch = np.kron(m * np.sqrt(g2[l])[None, :], G)  # block (i, j) = M[i, j] g_l(j) G_l
            jac = (np.eye(length * width) + branch) @ jac
        last = jac[(length - 1) * width:]
        total += (last.reshape(width, length, width) ** 2).sum(axis=(0, 2)) / width
    np.testing.assert_allclose(np.sqrt(total / draws), tv.key_gain_row(g2), rtol=0.03)
    with pytest.raises(ValueError, match="gains_key"):
        tv.key_gain_row(-g2)


def test_zero_gains_give_the_identity_row():
    row = tv.random_matrix_row(6, np.zeros(4))
    np.testing.assert_array_equal(row, np.eye(6)[-1])


@pytest.mark.parametrize("bad", [np.array([0.1, -0.2]), np.array([np.nan]), np.zeros((2, 2)), np.array([])])
def test_bad_gains_raise(bad):
    with pytest.raises(ValueError, match="gains_sq"):
        tv.random_matrix_row(5, bad)


# Position-wise Jacobians: J = prod_l D_l (I + A (x) G_l), D_l = blockdiag(I + K_{l,i}).

def _forward_sq_norms(a, g2, k2):
    """The issue's forward recursion per source j with dense A (or one per layer, [H, L, L]):
    T_l = (1 1^T + kappa_l) o (T + A_l T A_l^T), A_l = A diag(g_l), kappa_l = diag(k_l^2) ([H, L]) or a Gram."""
    length = a.shape[-1]
    out = np.zeros(length)
    for j in range(length):
        t = np.zeros((length, length))
        t[j, j] = 1.0
        for l in range(g2.shape[0]):
            al = (a if a.ndim == 2 else a[l]) * np.sqrt(g2[l])[None, :]
            c = k2[l] if k2[l].ndim == 2 else np.diag(k2[l])  # a Gram kappa_l, or diag(k_l^2)
            t = (np.ones((length, length)) + c) * (t + al @ t @ al.T)
        out[j] = t[-1, -1]
    return out


def _independent_k(k2):
    """Sampler of K_{l,i} ~ N(0, k_{l,i}^2 / D), independent across positions: (rng, l, b, L, D) -> [b, L, D, D]."""
    def draw(rng, l, b, length, width):
        return rng.normal(0.0, 1.0, (b, length, width, width)) * np.sqrt(k2[l] / width)[None, :, None, None]
    return draw


def _monte_carlo(a, g2, k2, width, draws, seed, batch=2000, draw_k=None):
    """Mean and standard error of ||J_{L,j}||_F^2 / D over draws of G_l ~ N(0, g^2 / D) and K_{l,i}.

    K_{l,i} ~ N(0, k^2 / D) independent across positions, or from ``draw_k`` (a weight-shared MLP).
    Each layer's explicit (L D) x (L D) Jacobian D_l (I + A diag(g_l) (x) G_l) is built and the block row
    e_L of the product J_H ... J_1 is multiplied out: [B, D, L D] -> ||block j||_F^2 / D.
    """
    length, depth = a.shape[0], g2.shape[0]
    draw_k = _independent_k(k2) if draw_k is None else draw_k
    rng = np.random.default_rng(seed)
    eye, small = np.eye(length * width), np.eye(width)
    samples = []
    for start in range(0, draws, batch):
        b = min(batch, draws - start)
        rows = np.repeat(eye[None, (length - 1) * width:], b, axis=0)
        for l in reversed(range(depth)):  # e_L J_H first
            g = rng.normal(0.0, 1.0 / np.sqrt(width), (b, width, width))
            k = draw_k(rng, l, b, length, width)
            branch = np.einsum("im,bxy->bixmy", a * np.sqrt(g2[l])[None, :], g).reshape(b, *eye.shape)
            dl = np.zeros((b, length, width, length, width))
            for i in range(length):
                dl[:, i, :, i, :] = small + k[:, i]
            rows = rows @ (dl.reshape(b, *eye.shape) @ (eye + branch))
        samples.append((rows.reshape(b, width, length, width) ** 2).sum(axis=(1, 3)) / width)
    x = np.concatenate(samples)
    return x.mean(axis=0), x.std(axis=0, ddof=1) / np.sqrt(draws)


_LENGTH, _DEPTH = 6, 3
_RNG = np.random.default_rng(5)
_CASES = {  # name: (prior, g^2 [H] or [H, L], k^2 [H] or [H, L], width)
    "constant k": (theory.Causal(), np.array([0.8, 0.3, 1.5]), np.array([0.6, 1.0, 0.4]), 6),
    "k varying with i": (theory.Causal(), np.array([0.8, 0.3, 1.5]), _RNG.uniform(0.1, 2.0, (3, 6)), 4),
    "per-key g, window": (theory.SlidingWindow(3), _RNG.uniform(0.2, 1.5, (3, 6)), _RNG.uniform(0.1, 2.0, (3, 6)), 5),
}


@pytest.mark.parametrize("case", list(_CASES))
def test_positionwise_row_matches_a_monte_carlo_of_explicit_block_jacobians(case):
    """max |z| < 4 for the position-wise formula; the old random-matrix row, at its best scale, fails (|z| > 4)."""
    prior, g2, k2, width = _CASES[case]
    a = np.asarray(theory.attention_matrix(prior, _LENGTH), np.float64)
    g2f, k2f = (np.broadcast_to(v.reshape(_DEPTH, -1), (_DEPTH, _LENGTH)) for v in (g2, k2))
    mean, se = _monte_carlo(a, g2f, k2f, width, draws=8000, seed=11)
    pred = tv.positionwise_sq_norms(_LENGTH, g2, k2, prior=prior)
    z = (mean - pred) / se
    assert np.max(np.abs(z)) < 4, z
    np.testing.assert_allclose(np.sqrt(pred), tv.positionwise_row(_LENGTH, g2, k2, prior=prior), rtol=1e-15)
    old = tv.positionwise_sq_norms(_LENGTH, g2, np.zeros(_DEPTH), prior=prior)  # random_matrix(_keys), k ignored
    z_old = (mean - old * mean.sum() / old.sum()) / se  # even rescaled to the Monte-Carlo total
    assert np.max(np.abs(z_old)) > 4, z_old


# Weight-shared MLPs: K_{l,i} = c_{l,i} W_2 diag(1[W_1 x_{l,i} > 0]) W_1, W_1 ~ N(0, 1/D) [F, D],
# W_2 ~ N(0, 1/F) [D, F], the same W_1, W_2 at every position (fixed inputs x_{l,i}, ReLU gates).
# E_{W_2} W_2^T W_2 = (D/F) I_F, so kappa_l[i, i'] = E tr(K_i^T K_i') / D
# = c_i c_i' (1/F) sum_m E[1[w_m.x_i > 0] 1[w_m.x_i' > 0] ||w_m||^2] = c_i c_i' (pi - theta_ii') / (2 pi)
# (theta the angle between x_i and x_i'; ||w||^2 splits into the plane of x_i, x_i' and the rest), so
# k_{l,i}^2 = c_{l,i}^2 / 2 and, for i != i', kappa is not 0. W_2 is zero-mean and left-isotropic, so the
# recursion with C_l = 1 1^T + kappa_l is exact for this model (theory.variants docstring).

def _relu_gram(x, c):
    """kappa[i, i'] = c_i c_i' (pi - theta_ii') / (2 pi): [L, L] from inputs x [L, D] and scales c [L]."""
    u = x / np.linalg.norm(x, axis=1, keepdims=True)
    theta = np.arccos(np.clip(u @ u.T, -1.0, 1.0))
    return np.outer(c, c) * (np.pi - theta) / (2 * np.pi)


def _shared_mlp_k(inputs, scales, hidden):
    """Sampler of weight-shared ReLU-MLP Jacobians (comment above): (rng, l, b, L, D) -> [b, L, D, D]."""
    def draw(rng, l, b, length, width):
        w1 = rng.normal(0.0, 1.0 / np.sqrt(width), (b, hidden, width))
        w2 = rng.normal(0.0, 1.0 / np.sqrt(hidden), (b, width, hidden))
        gates = (np.einsum("bmd,id->bim", w1, inputs[l]) > 0).astype(float)  # [b, L, F]
        return scales[l][None, :, None, None] * np.einsum("bdm,bim,bme->bide", w2, gates, w1)
    return draw


def _shared_case(width, hidden, scale_spread, seed):
    """Inputs [H, L, D] with a common part (cos theta ~ 0.5: correlated gates), scales [H, L], Grams [H, L, L]."""
    rng = np.random.default_rng(seed)
    common = rng.normal(size=(_DEPTH, 1, width))
    inputs = common + rng.normal(size=(_DEPTH, _LENGTH, width))
    scales = np.sqrt(2 * rng.uniform(1.0 - scale_spread, 1.0 + scale_spread, (_DEPTH, _LENGTH)))  # k^2 ~ 1
    gram = np.stack([_relu_gram(inputs[l], scales[l]) for l in range(_DEPTH)])
    return inputs, scales, gram


_SHARED = {  # name: (prior, g^2 [H] or [H, L], width D, hidden F, spread of k^2 over i, draws)
    "shared MLP, constant k": (theory.Causal(), np.array([0.8, 0.3, 1.5]), 5, 10, 0.0, 6000),
    "shared MLP, k varying with i": (theory.Causal(), np.array([0.8, 0.3, 1.5]), 4, 8, 0.9, 6000),
    "shared MLP, per-key g, window": (theory.SlidingWindow(3), _RNG.uniform(0.2, 1.5, (3, 6)), 5, 10, 0.5, 6000),
}


def _shared_z(case, draws=None):
    """(z of the Gram row, z of the diagonal row rescaled, its max rel. error, z of the Gram's own Monte Carlo)."""
    prior, g2, width, hidden, spread, n = _SHARED[case]
    n = n if draws is None else draws
    inputs, scales, gram = _shared_case(width, hidden, spread, seed=7)
    a = np.asarray(theory.attention_matrix(prior, _LENGTH), np.float64)
    g2f = np.broadcast_to(g2.reshape(_DEPTH, -1), (_DEPTH, _LENGTH))
    draw_k = _shared_mlp_k(inputs, scales, hidden)
    mean, se = _monte_carlo(a, g2f, None, width, draws=n, seed=13, draw_k=draw_k)
    new = tv.positionwise_sq_norms(_LENGTH, g2, gram, prior=prior)
    old = tv.positionwise_sq_norms(_LENGTH, g2, np.diagonal(gram, axis1=1, axis2=2), prior=prior)
    old = old * mean.sum() / old.sum()  # the diagonal model at its best scale (profiles are normalized)
    k = draw_k(np.random.default_rng(17), 0, 4000, _LENGTH, width)  # the Gram itself, layer 1
    traces = np.einsum("bide,bjde->bij", k, k) / width
    z_gram = (traces.mean(0) - gram[0]) / (traces.std(0, ddof=1) / np.sqrt(len(k)))
    return (mean - new) / se, (mean - old) / se, np.max(np.abs(old / mean - 1)), z_gram


@pytest.mark.parametrize("case", list(_SHARED))
def test_positionwise_gram_matches_a_monte_carlo_of_weight_shared_mlps(case):
    """The Gram row agrees (max |z| < 4); the diagonal (independent-positions) row, rescaled, does not."""
    z_new, z_old, _, z_gram = _shared_z(case)
    assert np.max(np.abs(z_gram)) < 4.5, z_gram  # the closed-form Gram (36 entries)
    assert np.max(np.abs(z_new)) < 4, z_new
    assert np.max(np.abs(z_old)) > 4, z_old


def test_positionwise_gram_generalizes_the_diagonal():
    rng = np.random.default_rng(6)
    g2, k2 = rng.uniform(0.1, 2.0, (3, 7)), rng.uniform(0.0, 3.0, (3, 7))
    diag = np.stack([np.diag(k) for k in k2])
    np.testing.assert_allclose(tv.positionwise_sq_norms(7, g2, diag), tv.positionwise_sq_norms(7, g2, k2), rtol=1e-13)
    x = rng.normal(size=(3, 7, 4)) + 1.0
    gram = np.stack([_relu_gram(x[l], np.sqrt(2 * k2[l])) for l in range(3)])
    a = np.asarray(theory.attention_matrix(theory.Causal(), 7), np.float64)
    np.testing.assert_allclose(tv.positionwise_sq_norms(7, g2, gram), _forward_sq_norms(a, g2, gram), rtol=1e-12)
    for bad in (gram[:, :, :6], gram + np.triu(np.ones(7), 1)[None], -np.abs(gram), gram * np.nan):
        with pytest.raises(ValueError, match="mlp_gains_sq"):
            tv.positionwise_sq_norms(7, g2, bad)


@pytest.mark.parametrize("prior", [theory.Causal(), theory.PrefixLM(2), theory.Chunks((3, 4))])
def test_positionwise_adjoint_equals_the_forward_recursion_per_source(prior):
    rng = np.random.default_rng(3)
    g2, k2 = rng.uniform(0.1, 2.0, (4, 7)), rng.uniform(0.0, 3.0, (4, 7))
    a = np.asarray(theory.attention_matrix(prior, 7), np.float64)
    np.testing.assert_allclose(tv.positionwise_sq_norms(7, g2, k2, prior=prior), _forward_sq_norms(a, g2, k2),
                               rtol=1e-12)


def test_positionwise_uses_one_attention_matrix_per_layer():
    prior = theory.Content(diag=((0.5,), (1.0,), (2.0,)))  # a self bonus per layer
    g2, k2 = np.array([[0.5] * 6, [1.0] * 6, [0.3] * 6]), np.array([[0.4] * 6, [0.2] * 6, [1.0] * 6])
    a = np.stack([np.asarray(theory.content_matrix(prior, 6, l), np.float64) for l in range(3)])
    np.testing.assert_allclose(tv.positionwise_sq_norms(6, g2, k2, prior=prior), _forward_sq_norms(a, g2, k2),
                               rtol=1e-12)
    with pytest.raises(ValueError, match="prior has 3 per-layer operators"):
        tv.positionwise_sq_norms(6, g2[:2], k2[:2], prior=prior)


def test_positionwise_without_position_gains_is_the_random_matrix_row():
    rng = np.random.default_rng(4)
    g2, gk = rng.uniform(0.1, 2.0, 5), rng.uniform(0.1, 2.0, (5, 9))
    np.testing.assert_allclose(tv.positionwise_row(9, g2, np.zeros(5)), tv.random_matrix_row(9, g2), rtol=1e-13)
    np.testing.assert_allclose(tv.positionwise_row(9, gk, np.zeros((5, 9))), tv.key_gain_row(gk), rtol=1e-13)
    np.testing.assert_allclose(theory.positionwise_row(9, g2, np.zeros(5), prior=theory.SlidingWindow(4)),
                               tv.random_matrix_row(9, g2, prior=theory.SlidingWindow(4)), rtol=1e-13)


def test_constant_position_gain_does_not_simply_rescale():
    """k constant over i is not a common factor: coinciding paths gain 1 + k^2, the others do not."""
    g2 = np.full(3, 0.5)
    ratio = tv.positionwise_sq_norms(8, g2, np.full(3, 1.0)) / tv.positionwise_sq_norms(8, g2, np.zeros(3))
    assert ratio[-1] == pytest.approx(8.0)  # causal: source L reaches only position L, every path coincides: (1+k^2)^H
    assert np.ptp(ratio) > 1.0


@pytest.mark.parametrize("kwargs, name", [
    ({"length": 0}, "length"),
    ({"gains_sq": np.array([0.1, -1.0])}, "gains_sq"),
    ({"gains_sq": np.zeros((2, 4))}, "gains_sq"),
    ({"mlp_gains_sq": np.zeros(3)}, "mlp_gains_sq"),
    ({"mlp_gains_sq": np.array([np.nan, 0.0])}, "mlp_gains_sq"),
    ({"mlp_gains_sq": np.zeros((2, 6))}, "mlp_gains_sq"),
    ({"prior": "causal"}, "prior"),
])
def test_positionwise_bad_arguments_raise(kwargs, name):
    args = {"length": 5, "gains_sq": np.array([0.5, 0.2]), "mlp_gains_sq": np.array([0.1, 0.3])} | kwargs
    with pytest.raises(ValueError, match=name):
        tv.positionwise_row(args.pop("length"), args.pop("gains_sq"), args.pop("mlp_gains_sq"), **args)


def test_positionwise_refuses_what_is_over_the_limits():
    with pytest.raises(ValueError, match="max_memory_gb|max_operations"):
        tv.positionwise_row(10**6, np.ones(2), np.ones(2))
