"""theory/cesaro.py: the dense Cesàro and mixing matrices and the exact matrix product."""

from fractions import Fraction

import numpy as np
import pytest

from lostmid_jax.theory.cesaro import cesaro_matrix, exact_matmul, mixing_matrix


def test_cesaro_rows_average_the_prefix():
    m = cesaro_matrix(5)
    x = np.array([3.0, -1.0, 4.0, 1.0, 5.0])
    assert m @ x == pytest.approx(np.cumsum(x) / np.arange(1, 6), rel=1e-15)
    exact = cesaro_matrix(4, exact=True)
    assert exact[3] == [Fraction(1, 4)] * 4 and exact[1] == [Fraction(1, 2), Fraction(1, 2), 0, 0]


def test_mixing_matrix_is_identity_plus_cesaro():
    a = Fraction(1, 3)
    exact = mixing_matrix(3, a, exact=True)
    m = cesaro_matrix(3, exact=True)
    assert exact == [[(1 - a) * (i == j) + a * m[i][j] for j in range(3)] for i in range(3)]
    assert np.allclose(mixing_matrix(3, 0.25), [[float(v) for v in row] for row in mixing_matrix(3, 0.25, exact=True)])
    assert np.array_equal(mixing_matrix(4, 0.0), np.eye(4))


def test_exact_matmul_equals_a_hand_product_and_refuses_floats_and_ragged_rows():
    x = [[1, Fraction(1, 2)], [0, 3]]
    y = [[Fraction(2, 3)], [4]]
    assert exact_matmul(x, y) == [[Fraction(8, 3)], [Fraction(12)]]
    assert exact_matmul([[np.int64(2)]], [[3]]) == [[6]]
    for a, b, match in (([[0.5]], [[1]], r"x\[0\]\[0\] must be an exact rational"),
                        ([[1, 2], [3]], [[1], [1]], "row 1"),
                        ([[1, 2]], [[1]], "2 columns but y has 1 rows"),
                        ([], [[1]], "0 rows")):
        with pytest.raises(ValueError, match=match):
            exact_matmul(a, b)
