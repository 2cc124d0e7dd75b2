"""masks/content_ops.py: the Content prior's O(L) layer operators and dense matrix against the softmax definition."""

import numpy as np
import pytest

from lostmid_jax.masks import Causal, Content, SlidingWindow
from lostmid_jax.masks.content_ops import content_matrix, layer_operators
from lostmid_jax.theory._arith import FloatOps

L = 7


def _definition(mask_allowed, diag, slopes, scores, weights, temperature):
    """Head average of softmax over allowed keys of (diag [i = j] + c_j - m_h |i - j|) / T."""
    i, j = np.indices((L, L))
    out = np.zeros((L, L))
    for d, m, p in zip(diag, slopes, weights):
        logits = np.where(mask_allowed, (d * (i == j) + scores[None, :] - m * np.abs(i - j)) / temperature, -np.inf)
        e = np.exp(logits - logits.max(1, keepdims=True))
        out += p * e / e.sum(1, keepdims=True)
    return out


@pytest.mark.parametrize("mask,allowed", [(Causal(), np.tril(np.ones((L, L), bool))),
                                          (SlidingWindow(3), np.tril(np.ones((L, L), bool)) & ~np.tril(np.ones((L, L), bool), -3))])
def test_matrix_and_rows_equal_the_softmax_definition(mask, allowed):
    scores = np.linspace(-1.0, 1.0, L)
    prior = Content(mask=mask, heads=2, diag=(1.5, -0.5), scores=tuple(scores), slopes=(0.3, 0.0),
                    head_weights=(3.0, 1.0), temperature=2.0)
    dense = _definition(allowed, (1.5, -0.5), (0.3, 0.0), scores, (0.75, 0.25), 2.0)
    assert content_matrix(prior, L) == pytest.approx(dense, rel=1e-12)
    r = np.random.default_rng(2).random(L)
    (operator,) = layer_operators(prior, L, FloatOps())
    assert operator(r) == pytest.approx(r @ dense, rel=1e-11)
