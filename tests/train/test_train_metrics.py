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


def _documents(edges_per_doc, n_doc=40, mid=1.0):
    """Documents of n_doc positions: edge value outside the central half (0.25..0.75 of the
    document), ``mid`` inside it, a 1e4 spike on each BOS; the last position (the output) 1e6."""
    parts = []
    for e in edges_per_doc:
        u = np.arange(n_doc) / (n_doc - 1)
        doc = np.where((u > 0.25) & (u < 0.75), mid, e)
        doc[0] = 1e4
        parts.append(doc)
    n = np.concatenate(parts + [np.array([1e6])])
    return n, np.arange(0, n.size - 1, n_doc)


def test_doc_u_of_constructed_documents():
    n, bounds = _documents([100.0, 100.0, 100.0])
    assert metrics.doc_u_profile(n, bounds) == pytest.approx([2.0, 2.0, 2.0])  # log10(100 / 1)
    assert metrics.boundary_spike(n, bounds) == pytest.approx(2.0)  # 1e4 over neighbours all 100: separate
    n, bounds = _documents([10.0, 1000.0])
    assert metrics.doc_u_profile(n, bounds) == pytest.approx([1.0, 3.0])
    assert metrics.doc_u(n, bounds) == pytest.approx(2.0)


def test_doc_u_geometric_mean_of_edges_flat_and_hump():
    n, bounds = _documents([1.0])
    n[1:5], n[-6:-1] = 10.0, 1000.0  # start edge 10, end edge 1000 (before the output position)
    assert metrics.doc_u(n, bounds) == pytest.approx(2.0)  # log10(sqrt(10 * 1000) / 1)
    assert metrics.doc_u(np.ones(50), [0, 25]) == pytest.approx(0.0)
    hump, hb = _documents([1.0, 1.0], mid=10.0)
    assert metrics.doc_u(hump, hb) == pytest.approx(-1.0)


def test_doc_u_short_documents_and_bad_input():
    assert np.isnan(metrics.doc_u(np.ones(12), [0, 4, 8]))  # documents of 4 positions < min_length 5
    with pytest.raises(ValueError, match="min_length"):
        metrics.doc_u(np.ones(12), [0], min_length=2)
    with pytest.raises(ValueError, match="edge"):
        metrics.doc_u_profile(np.ones(12), [0], edge=0.5)


def test_training_bands_are_named_and_centred_on_the_theory_middle():
    """train/ reads the middle x = 1/2 from theory.middle; its bands differ from the theory's and say so."""
    from lostmid_jax.theory.middle import MIDDLE_X
    from lostmid_jax.train import snapshots, tasks

    assert metrics.VALLEY_BAND == (0.35, 0.65) and sum(metrics.VALLEY_BAND) / 2 == MIDDLE_X
    assert tasks.NEEDLE_MIDDLE_BAND == (0.25, 0.75) and sum(tasks.NEEDLE_MIDDLE_BAND) / 2 == MIDDLE_X
    assert [snapshots.central_needle_bins(b).tolist() for b in (1, 2, 4, 5)] == [[0], [0, 1], [1, 2], [2]]
    assert tasks.needle_middle_pairs(8).tolist() == [2, 3, 4, 5] and tasks.needle_middle_pairs(1).tolist() == [0]
    np.testing.assert_array_equal(tasks.middle_weights([0.0, 0.25, 0.5, 1.0], 2.0), [1.0, 2.0, 3.0, 1.0])
    np.testing.assert_array_equal(np.flatnonzero(metrics.valley_band_mask(20, ())), np.arange(7, 14))
