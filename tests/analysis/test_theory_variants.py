"""analysis.theory_variants: each variant's row from the fitting rows (the row math: tests/theory/test_variants.py)."""

import numpy as np
import pytest

from lostmid_jax import theory
from lostmid_jax.analysis import theory_variants as tv
from lostmid_jax.analysis.theory_fit import theory_row


def test_one_layer_jacobian_variant_is_the_rescaled_identity_plus_branch():
    g2 = np.array([0.49])
    a = tv.jacobian_alphas(g2)[0]
    assert a == pytest.approx(0.7 / 1.7)
    length = 7
    m = np.asarray(theory.cesaro_matrix(length), np.float64)
    row = np.eye(length)[-1] + 0.7 * m[-1]
    np.testing.assert_allclose(tv.variant_row("jacobian_a", length, gains_sq=g2[None])[0], row / row.sum(), rtol=1e-12)


def test_variant_rows_use_the_mean_of_the_fitting_rows():
    alphas = np.array([[0.2, 0.4, 0.3], [0.4, 0.2, 0.5]])
    row, params = tv.variant_row("measured_a", 20, alphas=alphas)
    np.testing.assert_allclose(row, theory_row(20, alphas.mean(0)), rtol=1e-12)
    assert params == {}
    truth = theory_row(20, np.full(3, 0.35))
    row, params = tv.variant_row("fitted_a", 20, profiles=np.stack([truth * 3, truth]), alphas=alphas)
    assert params["a_fit"] == pytest.approx(0.35, abs=1e-4)
    np.testing.assert_allclose(row, truth, rtol=1e-4)


def test_positionwise_variant_averages_the_fitting_gains():
    rng = np.random.default_rng(0)
    g2, k2 = rng.uniform(0.1, 1.0, (2, 3)), rng.uniform(0.0, 2.0, (2, 3, 9))
    row, params = tv.variant_row("random_matrix_positionwise", 9, gains_sq=g2, mlp_gains=k2)
    np.testing.assert_allclose(row, theory.positionwise_row(9, g2.mean(0), k2.mean(0)), rtol=1e-14)
    assert params == {} and "random_matrix_positionwise" in tv.ZERO_PARAMETER
    zero, _ = tv.variant_row("random_matrix_positionwise", 9, gains_sq=g2, mlp_gains=0 * k2)
    np.testing.assert_allclose(zero, tv.variant_row("random_matrix", 9, gains_sq=g2)[0], rtol=1e-13)
    with pytest.raises(ValueError, match="mlp_gram.*or mlp_gains"):
        tv.variant_row("random_matrix_positionwise", 9, gains_sq=g2)
    u = rng.normal(size=(2, 3, 9, 4)) + 1.0  # a Gram per fitting row and layer, diagonal k2
    u = u / np.linalg.norm(u, axis=-1, keepdims=True)
    gram = np.einsum("fhid,fhjd->fhij", u, u) * np.sqrt(k2[..., :, None] * k2[..., None, :])
    row, _ = tv.variant_row("random_matrix_positionwise", 9, gains_sq=g2, mlp_gains=k2, mlp_gram=gram)
    np.testing.assert_allclose(row, theory.positionwise_row(9, g2.mean(0), gram.mean(0)), rtol=1e-14)
    assert np.abs(row / tv.variant_row("random_matrix_positionwise", 9, gains_sq=g2, mlp_gains=k2)[0] - 1).max() > 0.01
    gk = rng.uniform(0.1, 1.0, (2, 3, 9))
    row, _ = tv.variant_row("random_matrix_keys_positionwise", 9, gains_key=gk, mlp_gains=k2)
    np.testing.assert_allclose(row, theory.positionwise_row(9, gk.mean(0), k2.mean(0)), rtol=1e-14)
    row, _ = tv.variant_row("random_matrix_keys_positionwise", 9, gains_key=gk, mlp_gram=gram)
    np.testing.assert_allclose(row, theory.positionwise_row(9, gk.mean(0), gram.mean(0)), rtol=1e-14)
    zero, _ = tv.variant_row("random_matrix_keys_positionwise", 9, gains_key=gk, mlp_gains=0 * k2)
    np.testing.assert_allclose(zero, tv.variant_row("random_matrix_keys", 9, gains_key=gk)[0], rtol=1e-13)


def test_unknown_variant_raises():
    with pytest.raises(ValueError, match="variant"):
        tv.variant_row("paper", 5, alphas=np.ones((1, 2)))
