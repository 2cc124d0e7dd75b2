"""masks.base: every kind's allows, key_range, causal_at and dense matrix agree with one definition.

The definition (0-based query i, key j) is written here, independent of the classes.
"""

import itertools

import numpy as np
import pytest

from lostmid_jax import masks

L = 11
KINDS = [masks.Causal(), masks.Bidirectional(), masks.SlidingWindow(3), masks.SlidingWindow(40), masks.Sinks(2, 3),
         masks.Sinks(3), masks.Sinks(0, 4), masks.Chunks((4, 4, 3)), masks.PrefixLM(0), masks.PrefixLM(5),
         masks.ALiBi(2), masks.Content(mask=masks.Sinks(2, 3), heads=2, diag=1.0)]


def segments(prior) -> list[int]:
    return [k for k, n in enumerate(prior.lengths) for _ in range(n)]


def definition(prior, i, j) -> bool:
    prior = prior.support
    if prior == masks.Bidirectional():
        return True
    rules = {masks.SlidingWindow: lambda: i - prior.window < j, masks.PrefixLM: lambda: j < prior.prefix or j <= i,
             masks.Sinks: lambda: prior.window is None or j < prior.sinks or j > i - prior.window,
             masks.Chunks: lambda: segments(prior)[i] == segments(prior)[j]}
    extra = rules.get(type(prior), lambda: True)()
    return (j <= i or type(prior) is masks.PrefixLM) and extra


@pytest.mark.parametrize("prior", KINDS, ids=lambda p: p.label)
def test_allows_key_range_and_dense_matrix_follow_the_definition(prior):
    expected = np.array([[definition(prior, i, j) for j in range(L)] for i in range(L)])
    i, j = np.indices((L, L))
    np.testing.assert_array_equal(np.asarray(prior.allows(i, j)), expected)
    for q0, q1 in itertools.combinations(range(L + 1), 2):
        k0, k1 = prior.key_range((q0, q1), L)
        seen = np.nonzero(expected[q0:q1].any(axis=0))[0]
        assert 0 <= k0 <= seen.min() and seen.max() < k1 <= L
    matrix = prior.check(L).attention_matrix(L)
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0, rtol=1e-12)
    assert not np.any(matrix[~expected])
    assert prior.causal_at(L) == np.array_equal(matrix, np.tril(np.ones((L, L))) / np.arange(1, L + 1)[:, None])
    assert prior.causal or not prior.causal_at(L) or prior == masks.PrefixLM(0)


def test_chunks_without_lengths_is_nns_document_mask():
    documents = masks.Chunks(None)
    assert documents.needs_segments and not masks.Chunks((2, 3)).needs_segments
    assert np.array_equal(documents.allows(np.arange(4)[:, None], np.arange(4)), np.tril(np.ones((4, 4), bool)))
    with pytest.raises(ValueError, match="lengths"):
        masks.check_prior(documents, 4)


def test_check_prior_refuses_what_is_not_a_prior():
    with pytest.raises(ValueError, match="prior must be one of"):
        masks.check_prior("causal", 4)
