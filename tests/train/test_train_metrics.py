"""Profile summaries used by the snapshots."""

import numpy as np
import pytest

from lostmid_jax.train import metrics


def test_valley_depth_of_u_shape():
    x = np.linspace(0, 1, 101)
    u = 0.01 + (2 * x - 1) ** 2
    u[-1] = 10.0
    assert metrics.valley_depth(u) == pytest.approx(np.log10(10.0 / u[35:66].mean()), rel=1e-2)


def test_boundary_spike_detects_spike_and_guard_excludes_it():
    n = np.ones(60)
    n[30] = 100.0
    assert metrics.boundary_spike(n, [0, 30]) == pytest.approx(2.0)
    assert metrics.valley_depth(n, [0, 30]) == pytest.approx(0.0)
    assert np.isnan(metrics.boundary_spike(n, [0]))


def test_bad_norms():
    with pytest.raises(ValueError, match="norms"):
        metrics.valley_depth([1.0, np.nan, 2.0])
