"""theory/influence_jax.py: the JAX row equals the float64 row and the dense product."""

import numpy as np
import pytest

from lostmid_jax.theory.cesaro import mixing_matrix
from lostmid_jax.theory.influence_jax import row_jax


@pytest.mark.parametrize("schedule", [(0.5,), (0.2, 0.9, 1.0), (0.0, 0.0), (1.0,) * 6])
def test_row_jax_is_the_last_row_of_the_mixing_product(schedule):
    length = 7
    product = np.eye(length)
    for a in schedule:
        product = product @ mixing_matrix(length, a)
    row = np.asarray(row_jax(length, schedule))
    assert row.dtype == np.float64 and row == pytest.approx(product[-1], rel=1e-13, abs=1e-300)
