"""theory/prior_ops.py: the O(L) row operators r -> r A and the rollout, against dense masks built here."""

import numpy as np
import pytest

from lostmid_jax.masks import Bidirectional, Causal, Chunks, PrefixLM, SlidingWindow, Sinks
from lostmid_jax.theory._arith import FloatOps
from lostmid_jax.theory.prior_ops import rollout_row, row_operator

L = 9
I, J = np.indices((L, L))  # 0-based query i, key j
SEGMENT = np.repeat([0, 1, 2], [2, 4, 3])
DENSE_MASKS = {  # the definitions, 0-based
    "causal": (Causal(), J <= I),
    "bidirectional": (Bidirectional(), np.ones((L, L), bool)),
    "window3": (SlidingWindow(3), (J <= I) & (J > I - 3)),
    "chunks": (Chunks((2, 4, 3)), (J <= I) & (SEGMENT[I] == SEGMENT[J])),
    "prefix4": (PrefixLM(4), (J <= I) | ((I < 4) & (J < 4))),
    "sinks2_window3": (Sinks(2, window=3), (J <= I) & ((J < 2) | (J > I - 3))),
}


@pytest.mark.parametrize("name", list(DENSE_MASKS))
def test_row_operator_equals_the_dense_product(name):
    prior, mask = DENSE_MASKS[name]
    a = mask / mask.sum(1, keepdims=True)
    r = np.random.default_rng(0).random(L)
    assert row_operator(prior, L, FloatOps())(r) == pytest.approx(r @ a, rel=1e-12)


def test_rollout_is_the_last_row_of_the_product_of_blocks():
    prior, mask = DENSE_MASKS["window3"]
    a = mask / mask.sum(1, keepdims=True)
    schedule = (0.3, 1.0, 0.0, 0.7)
    product = np.eye(L)
    for alpha in schedule:
        product = product @ ((1 - alpha) * np.eye(L) + alpha * a)
    row = rollout_row(L, schedule, row_operator(prior, L, FloatOps()), FloatOps())
    assert row == pytest.approx(product[-1], rel=1e-12)
    assert row.sum() == pytest.approx(1.0, rel=1e-14)


def test_per_layer_operators_meet_the_row_last_layer_first():
    ops = FloatOps()
    causal, bidirectional = (row_operator(p, L, ops) for p in (Causal(), Bidirectional()))
    a_c = np.tril(np.ones((L, L))) / np.arange(1, L + 1)[:, None]
    a_b = np.full((L, L), 1 / L)
    row = rollout_row(L, (1.0, 1.0), [causal, bidirectional], ops)
    assert row == pytest.approx((a_b @ a_c)[-1], rel=1e-12)  # e_L^T N_2 N_1: layer 2 (bidirectional) first
    assert not np.allclose(row, (a_c @ a_b)[-1])  # the order matters here
