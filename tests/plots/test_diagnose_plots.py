"""plots.diagnose: each figure returns a Figure, draws into a caller's Axes, and the heat map's colour scale
diverges at 1 and says when it clips."""

import numpy as np
from matplotlib.colors import LogNorm
import pandas as pd
import pytest
from matplotlib.figure import Figure

from lostmid_jax.plots import diagnose


def _acc():
    return pd.DataFrame(dict(passage=[1, 2, 3], accuracy=[0.9, 0.5, 0.8], accuracy_lo=[0.8, 0.4, 0.7],
                             accuracy_hi=[0.95, 0.6, 0.9], exact=[0.8, 0.4, 0.7], exact_lo=[0.7, 0.3, 0.6],
                             exact_hi=[0.9, 0.5, 0.8], chance=[0.25] * 3))


def test_figures_return_and_accept_ax():
    att = pd.DataFrame(dict(layer=[1] * 4 + [2] * 4, x=[0.25, 0.5, 0.75, 1.0] * 2, raw=np.linspace(0.4, 0.1, 8),
                            vs_uniform=np.linspace(2, 0.5, 8)))
    prof = pd.DataFrame(dict(x=[0.25, 0.5, 0.75, 1.0], trained=[0.3, 0.1, 0.2, 0.4], trained_sem=[0.01] * 4,
                             step0=[0.4, 0.2, 0.1, 0.3], prior=[0.4, 0.2, 0.1, 0.3]))
    for fig in (diagnose.accuracy_by_passage(_acc()), diagnose.attention_by_layer(att),
                diagnose.influence_vs_prior(prof), diagnose.attention_heatmap(np.ones((4, 4)))):
        assert isinstance(fig, Figure)
    outer = Figure()
    ax = outer.subplots()
    assert diagnose.accuracy_by_passage(_acc(), ax=ax) is outer
    two = pd.concat([_acc().assign(length=32), _acc().assign(length=64)])
    fig = diagnose.accuracy_by_passage(two)
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert "multiple choice, T = 32" in labels and "exact match, T = 64" in labels


def test_heatmap_diverges_at_one_and_says_when_it_clips():
    """A log scale symmetric about 1 (1/top .. top), every bin beyond either end counted on the colour bar."""
    ratio = np.array([[1.0, np.nan], [0.2, 9.0]])
    fig = diagnose.attention_heatmap(ratio, top=3.0)
    image = fig.axes[0].images[0]
    assert isinstance(image.norm, LogNorm) and np.isclose(image.norm.vmin, 1 / 3) and image.norm.vmax == 3.0
    assert "1 bins above 3 drawn at it" in fig.axes[1].get_ylabel()
    assert "1 bins below 0.333 drawn at it" in fig.axes[1].get_ylabel()
    with pytest.raises(ValueError, match="ratio"):
        diagnose.attention_heatmap(np.ones(3))


def test_heatmap_colours_an_excess_and_an_equal_deficit_alike():
    """The issue's case: ratios within 3.2% of uniform. 1.032 and 1/1.032 get colours equally far from white
    (mirror images in the diverging map), and the colour bar is ticked on both halves of 1."""
    ratio = np.array([[1.032, np.nan], [1 / 1.032, 1.0]])
    fig = diagnose.attention_heatmap(ratio)
    image, bar = fig.axes[0].images[0], fig.axes[1]
    low, high = image.norm(np.array([1 / 1.032, 1.032]))
    assert np.isclose(low, 0.0) and np.isclose(high, 1.0) and np.isclose(image.norm(1.0), 0.5)
    cmap = image.get_cmap()
    white = np.asarray(cmap(0.5)[:3])
    assert np.isclose(np.abs(np.asarray(cmap(low)[:3]) - white).sum(), np.abs(np.asarray(cmap(high)[:3]) - white).sum(),
                      rtol=0.15)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig).draw()
    ticks = [float(t) for t in bar.get_yticks() if image.norm.vmin <= t <= image.norm.vmax]
    labels = [t.get_text() for t in bar.get_yticklabels()]
    assert any(t < 1 for t in ticks) and any(t > 1 for t in ticks) and 1.0 in ticks
    assert len(set(labels)) == len(labels) and all(label for label in labels)
