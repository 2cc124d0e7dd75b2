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
