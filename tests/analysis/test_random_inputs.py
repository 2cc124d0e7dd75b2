"""A profile unit's random input x [L, D]."""

import jax
import numpy as np

from lostmid_jax.analysis.random_inputs import model_input


class _Model:
    class cfg:
        vocab_size = None
        width = 4
        compute_dtype = np.float32


def test_model_input_is_gaussian_without_a_vocabulary():
    x = model_input(_Model(), 6, jax.random.key(0), "tokens")
    assert x.shape == (6, 4) and x.dtype == np.float32
    assert np.array_equal(x, jax.random.normal(jax.random.key(0), (6, 4), np.float32))
