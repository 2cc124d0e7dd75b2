"""masks/alibi.py: the ALiBi prior's slopes and checks, and its O(L) row operator against the dense matrix."""


import numpy as np
import pytest

from lostmid_jax.masks import ALiBi
from lostmid_jax.masks.alibi import check_slopes
from lostmid_jax.theory._arith import FloatOps


def test_standard_and_given_slopes():
    assert ALiBi(2).float_slopes() == pytest.approx((2**-4, 2**-8))
    assert ALiBi(2, slopes=[0.5, np.float64(0.0)]).slopes == (0.5, 0.0)
    assert ALiBi(3, rule="geometric").float_slopes() == pytest.approx(tuple(2 ** (-8 * h / 3) for h in (1, 2, 3)))


@pytest.mark.parametrize("kwargs,match", [
    (dict(n_heads=0), "n_heads"), (dict(n_heads=2, slopes=(1.0,)), "1 entries but n_heads is 2"),
    (dict(n_heads=1, slopes=(-1.0,)), r"slopes\[0\]"), (dict(n_heads=1, slopes=(10**400,)), "within float range"),
    (dict(n_heads=2, slopes=(1.0, 1.0), rule="geometric"), "cannot be combined"), (dict(n_heads=2, rule="x"), "rule"),
])
def test_bad_fields(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ALiBi(**kwargs)


def test_row_operator_equals_the_dense_head_average():
    prior, length = ALiBi(2, slopes=(0.7, 0.05)), 7
    i, j = np.indices((length, length))
    dense = np.zeros((length, length))
    for m in (0.7, 0.05):
        w = np.where(j <= i, np.exp(-m * (i - j)), 0.0)
        dense += w / w.sum(1, keepdims=True) / 2
    assert prior.attention_matrix(length) == pytest.approx(dense, rel=1e-12)
    r = np.random.default_rng(0).random(length)
    assert prior.row_operator(length, FloatOps())(r) == pytest.approx(r @ dense, rel=1e-12)
    with pytest.raises(ValueError, match="irrational"):
        prior.attention_matrix(length, exact=True)


def test_check_slopes_keeps_exact_numbers():
    from fractions import Fraction

    assert check_slopes("slopes", [Fraction(1, 3), 2], 2) == (Fraction(1, 3), 2)
    with pytest.raises(ValueError, match="must be None or a sequence"):
        check_slopes("slopes", 0.5, 1)
