"""Attention uniformity statistics against hand-computed rows."""

import math

import numpy as np
import pytest

from lostmid_jax.analysis.attention_uniformity import uniformity


def _uniform(length):
    return np.tril(np.ones((length, length))) / np.arange(1, length + 1)[:, None]


def test_uniform_attention_is_at_zero_distance():
    probs = np.broadcast_to(_uniform(6), (2, 3, 6, 6))
    u = uniformity(probs)
    np.testing.assert_allclose(u["kl"], 0.0, atol=1e-15)
    np.testing.assert_allclose(u["spread"], 0.0, atol=1e-15)
    np.testing.assert_allclose(u["max_ratio"], 1.0, rtol=1e-15)


def test_one_skewed_row_by_hand():
    p = _uniform(2)
    p[1] = [0.75, 0.25]  # row i = 2: i P = (1.5, 0.5)
    u = uniformity(p[None, None])
    assert u["kl"][0] == pytest.approx(0.75 * math.log(1.5) + 0.25 * math.log(0.5))
    assert u["spread"][0] == pytest.approx(0.5)
    assert u["max_ratio"][0] == pytest.approx(1.5)


@pytest.mark.parametrize("bad, match", [(np.ones((2, 2, 2)), "shape"), (np.ones((1, 1, 3, 3)) / 3, "causal"),
                                        (np.full((1, 1, 2, 2), np.nan), "finite")])
def test_bad_probs_raise(bad, match):
    with pytest.raises(ValueError, match=match):
        uniformity(bad)
