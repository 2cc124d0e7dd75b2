"""masks/_sums.py: the O(L) window and geometric sums against direct loops, in float64 and log space."""

import math

import numpy as np
import pytest

from lostmid_jax.masks._sums import geometric_window_gather, suffix, window_sums
from lostmid_jax.theory._arith import FloatOps, LogOps

U = np.random.default_rng(3).random(11)


def _window(u, w):
    return np.array([u[k:k + w].sum() for k in range(u.size)])


def _geometric(u, w, m):
    q = math.exp(-m)
    return np.array([sum(u[i] * q ** (i - k) for i in range(k, min(u.size, k + w))) for k in range(u.size)])


def test_suffix_sums():
    assert suffix(U, FloatOps()) == pytest.approx(np.cumsum(U[::-1])[::-1], rel=1e-14)


@pytest.mark.parametrize("w", [1, 2, 3, 4, 10, 11, 20])
def test_window_sums_equal_the_loop_in_both_arithmetics(w):
    assert window_sums(U, w, FloatOps()) == pytest.approx(_window(U, w), rel=1e-13)
    assert np.exp(window_sums(np.log(U), w, LogOps())) == pytest.approx(_window(U, w), rel=1e-12)


@pytest.mark.parametrize("w,m", [(3, 0.5), (4, 2.0), (11, 0.1), (1, 1.0)])
def test_geometric_window_gather_equals_the_loop(w, m):
    ops = FloatOps()
    powers = ops.geometric_powers(m, w + 1)
    assert geometric_window_gather(U, w, m, ops, powers) == pytest.approx(_geometric(U, w, m), rel=1e-12)
