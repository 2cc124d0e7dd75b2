"""masks/_costs.py: sizes as floats and the budget of a dense L x L matrix."""

import math

import pytest

from lostmid_jax.masks._costs import check_dense, num


def test_num_is_inf_past_float_range():
    assert num(3) == 3.0 and num(10**400) == math.inf


def test_a_small_dense_matrix_passes_and_a_huge_one_is_refused_naming_it():
    check_dense("attention_matrix", 64, exact=False)
    check_dense("attention_matrix", 64, exact=True)
    with pytest.raises(ValueError, match=r"attention_matrix: length=10000000, exact=True"):
        check_dense("attention_matrix", 10**7, exact=True)
    with pytest.raises(ValueError, match=r"length=1000000, n_heads=8"):
        check_dense("alibi", 10**6, exact=False, heads=8)
