"""Effective attention strength, attention probabilities, theory rows and the fitted a."""

import numpy as np
import pytest

from lostmid_jax import theory
from lostmid_jax.analysis import (attention_probs, attention_strength, attention_strength_under, fit_constant_alpha,
                                  theory_row)
from lostmid_jax.nn import Execution, forward_with_intermediates


def test_attention_strength_from_intermediates(toy64):
    model, x = toy64
    a = attention_strength(model, x)
    _, inter = forward_with_intermediates(model, x)  # Capture(): the per-token norms
    attn, resid = np.asarray(inter.attn_out_norm), np.asarray(inter.resid_norm)
    np.testing.assert_allclose(a, np.mean(attn / (attn + resid), axis=1), rtol=1e-12)
    assert a.shape == (model.cfg.depth,) and np.all((a > 0) & (a < 1))
    np.testing.assert_array_equal(attention_strength_under(model, x, Execution()), a)
    unrolled = attention_strength_under(model, x, Execution(remat=False, unroll_layers=True))
    np.testing.assert_allclose(unrolled, a, rtol=1e-12)  # how it runs: the same function


def test_attention_probs(toy64):
    model, x = toy64
    probs = attention_probs(model, x, [1])
    assert probs.shape == (1, model.cfg.heads, 16, 16)
    np.testing.assert_allclose(probs.sum(-1), 1.0, rtol=1e-6)
    assert np.all(np.triu(probs[0, 0], 1) == 0)
    with pytest.raises(ValueError, match="layers"):
        attention_probs(model, x, [model.cfg.depth])


def test_theory_row_is_influence_row():
    alphas = (0.2, 0.9, 0.5)
    np.testing.assert_allclose(theory_row(100, alphas), theory.influence_row(100, 3, alphas), rtol=1e-12)


@pytest.mark.parametrize("a", [0.1, 0.5, 0.95])
def test_fit_recovers_a_from_a_theory_row(a):
    row = theory.influence_row(256, 6, a) * 7.0
    assert fit_constant_alpha(row, 6) == pytest.approx(a, abs=1e-4)
    assert fit_constant_alpha(row, 6, objective="wasserstein") == pytest.approx(a, abs=1e-3)


@pytest.mark.parametrize("kwargs,match", [(dict(depth=0), "depth"), (dict(objective="l2"), "objective"),
                                          (dict(norms=np.zeros(5)), "norms")])
def test_fit_bad_input(kwargs, match):
    args = dict(norms=np.ones(5), depth=2) | kwargs
    with pytest.raises(ValueError, match=match):
        fit_constant_alpha(args.pop("norms"), **args)
