"""plots/scales.py: ratio scales symmetric about 1, tick labels with the digits they need, error-bar lengths."""

import numpy as np
import pytest
from matplotlib.figure import Figure

from lostmid_jax.plots import scales


def test_labels_gain_digits_until_they_differ():
    """The toy notebook's axis read 0.999, 0.9995, 1, 1, 1.001: the formatter adds digits where needed."""
    labels = scales.DistinctFormatter().format_ticks([0.999, 0.9995, 1.0, 1.0005, 1.001])
    assert labels == ["0.999", "0.9995", "1", "1.0005", "1.001"]
    assert scales.DistinctFormatter().format_ticks([0.0, 0.5, 1.0]) == ["0", "0.5", "1"]
    assert scales.DistinctFormatter().format_ticks([1000.0, 2000.0]) == ["1000", "2000"]
    assert scales.DistinctFormatter().format_ticks([-0.05, 0.0, 0.05]) == ["\u22120.05", "0", "0.05"]


def test_ratio_ticks_come_in_reciprocal_pairs():
    for limit in (1.004, 1.032, 1.3, 2.0, 4.0, 8.0, 100.0, 1e5):
        ticks = scales.ratio_ticks(limit)
        assert 1.0 in ticks and ticks == sorted(ticks) and len(ticks) % 2 == 1 and len(ticks) >= 3
        assert np.allclose(np.log(ticks), -np.log(ticks[::-1]))  # u and 1/u: as far from 1 either way
        assert 1 / limit * (1 - 1e-12) <= ticks[0] and ticks[-1] <= limit * (1 + 1e-12)
    assert scales.ratio_ticks(4.0) == [0.25, 0.5, 1.0, 2.0, 4.0]
    with pytest.raises(ValueError, match="limit"):
        scales.ratio_ticks(1.0)


def test_ratio_norm_is_symmetric_about_one_and_capped():
    norm, ticks = scales.ratio_norm([0.9, 1.0, 1.05, np.nan])
    assert np.isclose(norm.vmin * norm.vmax, 1.0) and np.isclose(norm.vmax, 1 / 0.9)
    assert np.isclose(norm(1.0), 0.5) and np.isclose(norm(1.1) - 0.5, 0.5 - norm(1 / 1.1))
    assert scales.ratio_norm([0.01, 50.0], top=4.0)[0].vmax == 4.0
    assert scales.ratio_limit([1.0, 1.0]) == scales.MIN_SPAN  # uniform: not stretched to noise
    with pytest.raises(ValueError, match="top"):
        scales.ratio_norm([1.0], top=1.0)


def test_ratio_axis_labels_both_halves_distinctly():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = Figure()
    ax = fig.subplots()
    ax.plot([0, 1], [0.995, 1.004])
    scales.ratio_axis(ax, 1.006)
    FigureCanvasAgg(fig).draw()
    labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
    assert ax.get_yscale() == "log" and np.isclose(ax.get_ylim()[0] * ax.get_ylim()[1], 1.0)
    assert labels == ["0.995", "1", "1.005"]


def test_error_lengths_are_never_negative():
    y = np.array([0.0, 1.0, 0.5, 0.3])
    lo = np.array([2.8e-17, 1.0, np.nan, 0.1])
    hi = np.array([0.3, 1 - 1.1e-16, 0.7, 0.2])  # the last: a basic-bootstrap interval missing its point
    err = scales.error_lengths(y, lo, hi)
    assert err.shape == (2, 4) and (err >= 0).all()
    assert np.allclose(err, [[0, 0, 0, 0.2], [0.3, 0, 0.2, 0]])
