"""analysis/content_scores.py: the self-score bonus read back from attention built with a known bonus."""

import numpy as np
import pytest

from lostmid_jax.analysis.content_scores import alibi_bias, score_statistics

L = 6
ALLOWED = np.tril(np.ones((L, L), bool))


def _probs(diag: float, bias=None):
    """Causal softmax of scores diag * [i = j] (+ bias): [H=1, N, L, L]."""
    heads = 1 if bias is None else bias.shape[0]
    scores = np.broadcast_to(diag * np.eye(L), (heads, L, L)) + (0 if bias is None else bias)
    scores = np.where(ALLOWED, scores, -np.inf)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True))[None]


@pytest.mark.parametrize("diag", [0.0, 1.5, -0.7])
def test_the_bonus_is_the_self_score_the_attention_was_built_with(diag):
    stats = score_statistics(_probs(diag), ALLOWED)
    assert stats.bonus[0, 0] == pytest.approx(diag, abs=1e-12)
    assert stats.rows == L - 1 and stats.samples == 1


def test_alibi_bias_is_removed_before_the_statistics():
    bias = alibi_bias(2, L, "alibi")
    assert bias[0, 3, 1] == pytest.approx(-2 * 2**-4) and bias[1, 0, 0] == 0.0
    stats = score_statistics(_probs(0.8, bias), ALLOWED, bias)
    assert stats.bonus[0] == pytest.approx([0.8, 0.8], abs=1e-12)


@pytest.mark.parametrize("probs,allowed,match", [
    (np.ones((2, 2, 2)), ALLOWED[:2, :2], "probs must have shape"),
    (_probs(0.0), np.eye(L, dtype=bool), "no query with two allowed keys"),
    (_probs(0.0), ~np.eye(L, dtype=bool), "allows every query itself"),
    (np.zeros((1, 1, L, L)), ALLOWED, "finite and > 0"),
])
def test_bad_inputs(probs, allowed, match):
    with pytest.raises(ValueError, match=match):
        score_statistics(probs, allowed)
