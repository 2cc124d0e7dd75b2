"""stats.ranks.average_ranks equals scipy.stats.rankdata(a, axis=-1) bit for bit (ties, NaN, +-inf, shapes)."""

import numpy as np
import pytest
from scipy import stats

from lostmid_jax.stats.ranks import average_ranks

_RNG = np.random.default_rng(1)
CASES = {
    "continuous": _RNG.random((200, 64)),
    "many ties": _RNG.integers(0, 5, (30, 40)).astype(float),
    "rounded": np.round(_RNG.random((5, 300)), 2),
    "one row with nan": np.array([3.0, 1.0, np.nan, 2.0]),
    "all equal, infinities": np.array([[1.0, 1.0, 1.0], [np.inf, -np.inf, np.inf]]),
    "integers, 3-d": _RNG.integers(0, 3, (4, 6, 9)),
    "nan in one row only": np.array([[np.nan, 1.0], [2.0, 2.0]]),
    "one entry": np.array([[5.0]]),
}


@pytest.mark.parametrize("name", CASES)
def test_equals_scipy_rankdata(name):
    x = CASES[name]
    expected, got = stats.rankdata(x, axis=-1), average_ranks(x)
    assert got.dtype == expected.dtype == np.float64 and got.shape == expected.shape
    assert got.tobytes() == expected.tobytes()


def test_needs_an_axis():
    with pytest.raises(ValueError, match="at least one axis"):
        average_ranks(3.0)
