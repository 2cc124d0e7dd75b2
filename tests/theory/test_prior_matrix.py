"""theory/prior_matrix.py: dense Step-0 matrices of the priors, against definitions written here."""

from fractions import Fraction

import numpy as np
import pytest

from lostmid_jax.masks import ALiBi, Causal, Chunks, SlidingWindow
from lostmid_jax.theory.prior_matrix import allowed_mask, attention_matrix


def test_masks_of_uniform_priors():
    i, j = np.indices((5, 5))
    assert np.array_equal(allowed_mask(Causal(), 5), j <= i)
    assert np.array_equal(allowed_mask(SlidingWindow(2), 5), (j <= i) & (j > i - 2))
    same_chunk = (i < 2) == (j < 2)
    assert np.array_equal(allowed_mask(Chunks((2, 3)), 5), (j <= i) & same_chunk)
    with pytest.raises(ValueError, match="ALiBi has no 0/1 mask"):
        allowed_mask(ALiBi(n_heads=2), 4)


def test_attention_matrices_are_the_row_normalized_masks():
    for prior in (Causal(), SlidingWindow(3), Chunks((1, 4))):
        mask = allowed_mask(prior, 5).astype(float)
        assert np.allclose(attention_matrix(prior, 5), mask / mask.sum(1, keepdims=True), rtol=0, atol=1e-15)
    exact = attention_matrix(Causal(), 3, exact=True)
    assert exact[2] == [Fraction(1, 3)] * 3 and exact[0][1] == 0


def test_alibi_rows_are_the_head_average_of_softmaxes():
    slopes = (2.0**-4, 2.0**-8)
    a = attention_matrix(ALiBi(n_heads=2), 4)
    i, j = np.indices((4, 4))
    rows = []
    for m in slopes:
        logits = np.where(j <= i, -m * (i - j), -np.inf)
        e = np.exp(logits - logits.max(1, keepdims=True))
        rows.append(e / e.sum(1, keepdims=True))
    assert np.allclose(a, np.mean(rows, axis=0), rtol=1e-12, atol=0)
