"""The depth sweep's figures: log10 values only on linear axes, clipping said, coincident curves named,
every number drawn taken from the saved tables."""

import math

import numpy as np
import pytest
from matplotlib.colors import LogNorm, SymLogNorm
from sweep_tables import sweep_tables

from lostmid_jax.experiments import depth_sweep as ds
from lostmid_jax.plots import depth_sweep as pds

# a = 1 down to H = 128: the factorial law reaches ~1e-250, far below the left panel's clip
CFG = ds.Config(depths=(1, 2, 3, 8, 32, 128), alphas=(0.25, 0.5, 1.0), lengths=(32,), power_b=None)


@pytest.fixture(scope="module")
def tables():
    return sweep_tables(CFG)


@pytest.fixture(scope="module")
def figures(tables):
    return pds.figures(tables, CFG)


def _all_axes(figures):
    return [(name, ax) for name, fig in figures.items() for ax in fig.axes]


def test_log10_values_sit_on_linear_axes_and_log_axes_hold_raw_counts(figures):
    for name, ax in _all_axes(figures):
        for axis in (ax.xaxis, ax.yaxis):
            label = axis.get_label().get_text()
            scale = axis.get_scale()
            if "decades" in label:
                continue  # the heatmap's colour bar: checked in test_heatmap_colours_are_log10_values_from_the_table
            if "log_{10}" in label:
                assert scale == "linear", (name, label)
            if scale != "linear":
                assert "log_{10}" not in label and "$H$" in label, (name, label)  # only the depth is on log axes
        for image in ax.collections:  # fig4's colour is the log of the log (its own test below)
            assert name == "fig4_peak_to_trough" or not isinstance(image.norm, (LogNorm, SymLogNorm)), name


def test_heatmap_colours_are_log10_values_from_the_table(tables, figures):
    """The mesh holds log10(ratio) from results.csv; the colour is a log scale of those decades from the
    smallest to the largest shown (the log of the log), colour-bar ticks 10^t inside it; each cell's value
    written in it where it fits (10^v, two decimals or whole decades, read back against results.csv)."""
    fig = figures["fig4_peak_to_trough"]
    heat, bar = fig.axes
    assert "decades" in bar.get_ylabel() and any("log of the log" in t.get_text() for t in heat.texts)
    norm = heat.collections[0].norm
    rows = tables["results"]
    rows = rows[(rows["schedule"] == "constant") & ~rows["continuum"]]
    values = heat.collections[0].get_array()
    expected = np.array([[rows[(rows["alpha"] == a) & (rows["depth"] == h)]["log10_peak_to_trough"].item()
                          for h in CFG.depths] for a in sorted(CFG.alphas)])
    shown = ~np.ma.getmaskarray(values).reshape(expected.shape)
    assert np.array_equal(shown, np.isfinite(expected) & (expected > 0))
    assert np.allclose(np.ma.getdata(values).reshape(expected.shape)[shown], expected[shown], rtol=0, atol=0)
    assert isinstance(norm, LogNorm) and norm.vmin == expected[shown].min() and norm.vmax == expected[shown].max()
    ticks = bar.get_yticks()
    assert len(ticks) >= 2 and all(norm.vmin <= t <= norm.vmax for t in ticks)
    assert [t.get_text() for t in bar.get_yticklabels()] == [f"$10^{{{t:g}}}$" for t in ticks]
    centres = np.sqrt(pds._edges(np.asarray(CFG.depths, float))[:-1] * pds._edges(np.asarray(CFG.depths, float))[1:])
    written = [t for t in heat.texts if t.get_text().startswith("$10^{")]  # the cells (the caption starts otherwise)
    assert len(written) == shown.sum()  # six wide columns: every value fits
    for text in written:
        x, y = text.get_position()
        cell = expected[int(y), int(np.argmin(np.abs(np.log(centres / x))))]
        digits = text.get_text()[5:-2]
        assert float(digits) == round(cell, 2 if "." in digits else 0), (text.get_text(), cell)


def test_heatmap_writes_values_only_where_they_fit():
    """At the main job's size (66 depths on a log axis) the narrow cells carry no text, and every text
    written fits inside its cell (the rendered box against the cell's box)."""
    from full_size_tables import depth_sweep_tables
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = pds.peak_to_trough_heatmap(depth_sweep_tables()["results"])
    FigureCanvasAgg(fig).draw()
    heat = fig.axes[0]
    texts = [t for t in heat.texts if t.get_text() and "log of the log" not in t.get_text()]  # the cells
    assert 5 <= len(texts) < 5 * 66 / 2  # some cells are written, most narrow ones are not
    depths = np.array(sorted(set(pds._constant(depth_sweep_tables()["results"], False)["depth"])), float)
    edges = pds._edges(depths)
    renderer = fig.canvas.get_renderer()
    for text in texts:
        x, y = text.get_position()
        k = int(np.searchsorted(edges, x)) - 1
        (x0, y0), (x1, y1) = heat.transData.transform([(edges[k], int(y)), (edges[k + 1], int(y) + 1)])
        box = text.get_window_extent(renderer)
        assert x0 <= box.x0 and box.x1 <= x1 and min(y0, y1) <= box.y0 and box.y1 <= max(y0, y1), text.get_text()
    written_depths = {int(round(float(depths[int(np.searchsorted(edges, t.get_position()[0])) - 1]))) for t in texts}
    assert not written_depths & set(range(16, 64))  # H = 16..63: cells narrower than any value


def test_every_mark_has_a_legend_entry_and_omissions_are_stated(figures):
    ax = figures["fig1_u_curves"].axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("j = L" in label and "dots" in label for label in labels)  # the recency dots
    assert "dots" not in ax.get_title()
    geo = figures["fig2_middle_vs_depth"].axes[2]
    assert "not shown: $H = 1$" in geo.get_xlabel()


def test_middle_panel_clipping_is_annotated_with_the_true_count(tables, figures):
    left = figures["fig2_middle_vs_depth"].axes[0]
    bottom = left.get_ylim()[0]
    assert bottom == -pds.CLIP_DECADES - 5
    rows = tables["results"]
    rows = rows[(rows["schedule"] == "constant") & rows["continuum"]]
    law = rows.drop_duplicates("depth")["log10_factorial_law"]
    geometric = rows["log10_geometric_law"].dropna()
    expected = int((rows["log10_middle_density"] < bottom).sum() + (law < bottom).sum() + (geometric < bottom).sum())
    assert expected >= 2  # the a = 1 curve and the factorial law at H = 128
    notes = [t.get_text() for t in left.texts if "not shown" in t.get_text()]
    lowest = min(rows["log10_middle_density"].min(), law.min())
    assert notes == [f"\u25bc {expected} points below \u2212{pds.CLIP_DECADES + 5} not shown "
                     f"(lowest: \u2212{-lowest:.0f})"]


def test_no_clipping_note_when_nothing_is_clipped():
    cfg = ds.Config(depths=(1, 2, 4), alphas=(0.5, 1.0), lengths=(32,), power_b=None)
    fig = pds.middle_vs_depth(sweep_tables(cfg)["results"], cfg)
    assert not [t for t in fig.axes[0].texts if "not shown" in t.get_text()]


def test_coincident_curves_are_named_and_distinguishable(figures):
    left = figures["fig2_middle_vs_depth"].axes[0]
    labels = [ln.get_label() for ln in left.get_lines() if not ln.get_label().startswith("_")]
    coinciding = [label for label in labels if "coincides with" in label]
    assert len(coinciding) == 1 and "a = 1" in coinciding[0] and "factorial law" in coinciding[0].split("coincides")[1]
    styles = {(ln.get_linestyle(), ln.get_marker(), ln.get_color()) for ln in left.get_lines()
              if not ln.get_label().startswith("_")}
    assert len(styles) == len(labels)


def test_law_panels_plot_the_table_ratios(tables, figures):
    _, fact, geo = figures["fig2_middle_vs_depth"].axes[:3]
    rows = tables["results"]
    rows = rows[(rows["schedule"] == "constant") & rows["continuum"]]
    geo_lines = [ln for ln in geo.get_lines() if not ln.get_label().startswith("_")]
    assert len(geo_lines) == 2  # a = 0.25 and 0.5; a = 1 has no geometric law
    for line in geo_lines:
        a = float(line.get_label().strip("$").split("=")[1])
        mine = rows[(rows["alpha"] == a) & rows["log10_geometric_law"].notna()].sort_values("depth")
        assert np.allclose(line.get_ydata(), 10 ** (mine["log10_middle_density"] - mine["log10_geometric_law"]))
        assert 0.3 < min(line.get_ydata()) and max(line.get_ydata()) < 1.5  # a plain ratio near 1
    fact_lines = [ln for ln in fact.get_lines() if not ln.get_label().startswith("_")]
    assert len(fact_lines) == len(CFG.alphas)
    one = next(ln for ln in fact_lines if "a = 1" in ln.get_label())
    assert np.allclose(one.get_ydata(), 0, atol=1e-9)  # exact = law at a = 1


def test_u_curves_draw_the_profiles_table(tables, figures):
    ax = figures["fig1_u_curves"].axes[0]
    profiles = tables["profiles"]
    lines = [ln for ln in ax.get_lines() if ln.get_label().startswith("$H")]
    assert [int(ln.get_label().strip("$").split("=")[1]) for ln in lines] == sorted(profiles["depth"].unique())
    for line in lines:
        depth = int(line.get_label().strip("$").split("=")[1])
        rows = profiles[(profiles["depth"] == depth) & (profiles["j"] < profiles["length"])]
        assert np.array_equal(line.get_xdata(), rows["x"]) and np.array_equal(line.get_ydata(), rows["log10_density"])
    assert "alpha" in profiles and math.isclose(profiles["alpha"].iloc[0], 0.5)


def test_pick_evenly_and_profile_choice():
    assert ds.pick_evenly(range(1, 65), 6) == [1, 2, 5, 12, 28, 64]
    assert ds.pick_evenly([3, 1, 3], 6) == [1, 3]
    assert ds.profile_choice(CFG) == (0.5, 32, [1, 2, 3, 8, 32])
    assert ds.profile_choice(ds.Config(depths=(128, 256), alphas=(0.25, 0.75, 1.0), lengths=(64, 32)))[:2] == (0.75, 64)
