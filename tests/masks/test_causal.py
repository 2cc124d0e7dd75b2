"""masks/causal.py: the causal (Cesàro) and bidirectional priors: counts, rows, ALiBi sums, names."""

import math

import numpy as np
import pytest

from lostmid_jax.masks import Bidirectional, Causal
from lostmid_jax.theory._arith import FloatOps

L = 6
R = np.random.default_rng(7).random(L)


def test_causal_row_operator_is_the_cesaro_suffix_sum():
    i = np.arange(1, L + 1)
    expected = np.array([sum(R[k] / i[k] for k in range(j, L)) for j in range(L)])  # (rM)_j = sum_{i>=j} r_i / i
    assert Causal().row_operator(L, FloatOps())(R) == pytest.approx(expected, rel=1e-13)
    assert Causal().counts(L).tolist() == list(range(1, L + 1))


def test_bidirectional_row_operator_is_the_mean():
    assert Bidirectional().row_operator(L, FloatOps())(R) == pytest.approx(np.full(L, R.sum() / L), rel=1e-14)
    assert Bidirectional().counts(L).tolist() == [L] * L
    assert Bidirectional().key_range((2, 3), L) == (0, L)


def test_bidirectional_alibi_sums_weigh_both_directions():
    m = 0.4
    forward, gather = Bidirectional().alibi_sums(L, m, FloatOps())
    i, j = np.indices((L, L))
    weights = np.exp(-m * np.abs(i - j))
    assert forward(R) == pytest.approx(weights @ R, rel=1e-12)  # F_i = sum_j q^|i-j| g_j
    assert gather(R) == pytest.approx(R @ weights, rel=1e-12)


def test_names_and_causality():
    assert (Causal().label, Causal().spec, Bidirectional().spec) == ("causal", "causal", "bidirectional")
    assert Causal().causal_at(None) and not Bidirectional().causal
    assert math.isfinite(Bidirectional().cost_terms(L)[2])
