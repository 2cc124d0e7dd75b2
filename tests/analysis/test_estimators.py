"""analysis/estimators.py: cotangent rows, keys, and the profile estimates from per-cotangent squared norms."""

import jax
import numpy as np
import pytest

from lostmid_jax.analysis.estimators import check_key, check_measured, cotangents, estimate


def test_cotangent_rows_per_method():
    assert np.array_equal(cotangents("exact", 3, np.float64, probes=5, key=None), np.eye(3))
    assert np.asarray(cotangents("one-pass", 3, np.float64, probes=5, key=None)).tolist() == [[1.0, 1.0, 1.0]]
    probes = cotangents("randomized", 3, np.float64, probes=5, key=0)
    assert probes.shape == (5, 3)
    assert np.array_equal(probes, cotangents("randomized", 3, np.float64, probes=5, key=jax.random.key(0)))
    with pytest.raises(ValueError, match="key is required"):
        cotangents("randomized", 3, np.float64, probes=5, key=None)


def test_keys():
    assert check_key(np.int64(3)).shape == ()
    raw = jax.random.PRNGKey(1)
    assert check_key(raw) is raw
    for bad in (True, "seed", np.zeros(3, np.uint32)):
        with pytest.raises(ValueError, match="key must be a jax.random key"):
            check_key(bad)


def test_exact_estimate_sums_and_pads():
    s = np.array([[1.0, 4.0], [3.0, 5.0]])  # K = 2 cotangents, L' = 2 of L = 3
    profile = estimate("exact", 1, s, 3)
    assert profile.sq_norms.tolist() == [4.0, 9.0, 0.0] and profile.norms.tolist() == [2.0, 3.0, 0.0]
    assert profile.sq_stderr is None and profile.cotangents == 2


def test_randomized_estimate_is_the_mean_with_its_standard_error():
    s = np.array([[1.0, 2.0], [3.0, 2.0], [5.0, 2.0]])
    profile = estimate("randomized", 0, s, 2)
    assert profile.sq_norms.tolist() == [3.0, 2.0]
    assert profile.sq_stderr == pytest.approx([2.0 / np.sqrt(3), 0.0])
    assert profile.stderr[0] == pytest.approx(profile.sq_stderr[0] / (2 * np.sqrt(3.0)))


def test_unusable_measurements_are_refused():
    with pytest.raises(ValueError, match="non-finite"):
        check_measured(np.array([[[1.0, np.inf]]]))
    with pytest.raises(ValueError, match="zero at every position"):
        check_measured(np.zeros((2, 1, 3)))
