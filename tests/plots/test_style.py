"""The shared figure style: palette, rc context, series styles, coincident curves, clipping notes, integer ticks."""

import subprocess
import sys

import matplotlib
import numpy as np
import pytest
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure

from lostmid_jax.plots import style


def _srgb_to_linear(c):
    c = np.asarray(c)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _deuteranopia(rgb):
    """Machado et al. (2009) full-severity deuteranopia matrix on linear RGB."""
    m = np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]])
    return m @ _srgb_to_linear(rgb)


def test_palette_is_okabe_ito_and_distinct_under_deuteranopia():
    assert len(style.PALETTE) == 8 and len(set(style.PALETTE)) == 8
    assert style.PALETTE[0] == "#0072B2" and style.PALETTE[-1] == "#000000"
    sim = [_deuteranopia(to_rgb(c)) for c in style.PALETTE[:6]]
    gaps = [np.abs(a - b).max() for k, a in enumerate(sim) for b in sim[:k]]
    assert min(gaps) > 0.03  # the six colours used for series stay apart for a deuteranope
    assert len(style.MARKERS) == len(style.LINESTYLES) == len(style.PALETTE)


def test_context_sets_and_restores_rc():
    before = matplotlib.rcParams["savefig.dpi"], matplotlib.rcParams["axes.grid"]
    with style.context():
        assert matplotlib.rcParams["savefig.dpi"] == 150 == style.DPI
        assert matplotlib.rcParams["axes.grid"] is True
        cycle = [d["color"] for d in matplotlib.rcParams["axes.prop_cycle"]]
        assert cycle == list(style.PALETTE)
        ax = Figure().subplots()
        (line,) = ax.plot([0, 1], [0, 1])
        assert line.get_color() == style.PALETTE[0]
    assert (matplotlib.rcParams["savefig.dpi"], matplotlib.rcParams["axes.grid"]) == before
    with style.context(**{"font.size": 13}):
        assert matplotlib.rcParams["font.size"] == 13


def test_styled_decorator_applies_context():
    @style.styled
    def dpi():
        return matplotlib.rcParams["figure.dpi"]

    assert dpi() == style.DPI


def test_series_styles_differ_and_validate():
    kws = [style.series(i, 4) for i in range(4)]
    assert len({k["color"] for k in kws}) == len({k["marker"] for k in kws}) == 4
    assert len({str(k["linestyle"]) for k in kws}) == 4
    starts = [k["markevery"][0] for k in kws]
    assert starts == sorted(set(starts))  # staggered marker positions
    assert "marker" not in style.series(0, marker=False)
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="i must be"):
            style.series(bad)
    with pytest.raises(ValueError, match="i must be < n"):
        style.series(3, 2)
    with pytest.raises(ValueError, match="every"):
        style.series(0, every=0)


def test_series_past_the_palette_differ_from_those_sharing_their_colour():
    """The counterfactuals' 13 priors: causal (0) and ALiBi 16 heads (8) were the same blue solid circles."""
    kws = [style.series(i, 16) for i in range(16)]
    for i in range(8):
        first, second = kws[i], kws[i + 8]
        assert first["color"] == second["color"]
        assert (first["marker"], str(first["linestyle"]), first["markerfacecolor"]) != \
               (second["marker"], str(second["linestyle"]), second["markerfacecolor"])
        assert first["marker"] != second["marker"] and str(first["linestyle"]) != str(second["linestyle"])


def test_coincident_curves_are_named_in_the_legend_and_stay_visible():
    ax = Figure().subplots()
    x = np.linspace(0, 1, 50)
    ax.plot(x, np.sin(x), label="a", **style.series(0, 3))
    ax.plot(x, np.sin(x) * (1 + 1e-9), label="b", **style.series(1, 3))
    ax.plot(x, np.cos(x), label="c", **style.series(2, 3))
    ax.plot(x, np.sin(x), label="_hidden")
    assert style.mark_coincident(ax) == ["b (coincides with a)"]
    labels = [ln.get_label() for ln in ax.get_lines()]
    assert labels[:3] == ["a", "b (coincides with a)", "c"]
    a, b = ax.get_lines()[:2]
    assert a.get_marker() != b.get_marker() and a.get_markevery() != b.get_markevery()


def test_coincidence_needs_equal_x_and_matching_nonfinite():
    ax = Figure().subplots()
    ax.plot([1, 2, 3], [1.0, np.nan, 3.0], label="a")
    ax.plot([1, 2, 3], [1.0, 2.0, 3.0], label="b")  # NaN vs value: different
    ax.plot([1, 2, 4], [1.0, np.nan, 3.0], label="c")  # other x
    ax.plot([1, 2, 3], [1.0, np.nan, 3.0 + 1e-3], label="d")  # beyond rtol
    ax.plot([1, 2, 3], [1.0, np.nan, 3.0], label="e")
    assert [(p.get_label(), q.get_label()) for p, q in style.coincident_pairs(ax)] == [("e", "a")]
    with pytest.raises(ValueError, match="rtol"):
        style.coincident_pairs(ax, rtol=-1)


def test_annotate_clipping_says_how_many_and_where():
    ax = Figure().subplots()
    ax.plot([1, 2, 3], [-100, -50, 0])
    ax.set_ylim(-85, 2)
    text = style.annotate_clipping(ax, "y", -85, 1, note="lowest: \u2212100")
    assert text.get_text().endswith("1 points below \u221285 not shown (lowest: \u2212100)")
    assert text.get_position()[1] < 0.5 and text.get_transform() is ax.transAxes
    top = style.annotate_clipping(ax, "y", 2, 4, what="values")
    assert "4 values above 2" in top.get_text() and top.get_position()[1] > 0.5
    assert "left of" in style.annotate_clipping(ax, "x", 1, 2).get_text()
    assert style.annotate_clipping(ax, "y", -85, 0) is None
    with pytest.raises(ValueError, match="axis"):
        style.annotate_clipping(ax, "z", 0, 1)
    with pytest.raises(ValueError, match="n_clipped"):
        style.annotate_clipping(ax, "y", 0, -1)
    with pytest.raises(ValueError, match="limit"):
        style.annotate_clipping(ax, "y", np.nan, 1)


def test_log_count_axis_labels_powers_of_two_plainly():
    fig = Figure()
    ax = fig.subplots()
    ax.plot([1, 256], [0, 1])
    style.log_count_axis(ax, "x")
    fig.canvas.draw()
    assert ax.get_xscale() == "log"
    labels = [t.get_text() for t in ax.get_xticklabels() if 1 <= t.get_position()[0] <= 256]
    assert labels == ["1", "2", "4", "8", "16", "32", "64", "128", "256"]
    for bad in (1, 2.5):
        with pytest.raises(ValueError, match="base"):
            style.log_count_axis(ax, "x", base=bad)


def test_integer_ticks():
    fig = Figure()
    ax = fig.subplots()
    ax.plot([0, 3], [0.0, 2.5])
    style.integer_ticks(ax, "both")
    fig.canvas.draw()  # the Agg canvas of a bare Figure; no backend is selected
    for ticks in (ax.get_xticks(), ax.get_yticks()):
        assert np.allclose(ticks, np.round(ticks))
    with pytest.raises(ValueError, match="axis"):
        style.integer_ticks(ax, "z")


def test_style_selects_no_backend():
    code = ("import sys, matplotlib\n"
            "from lostmid_jax.plots import style\n"
            "with style.context():\n"
            "    pass\n"
            "assert 'matplotlib.pyplot' not in sys.modules\n"
            "assert matplotlib.rcParams._get_backend_or_none() is None\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_pdf_embeds_no_type3_font_and_svg_keeps_its_text(tmp_path):
    """Journals refuse Type 3 fonts: the style's PDFs embed TrueType (Type 42) fonts, mathtext included, and
    its SVGs keep labels as <text> elements (editable), not glyph paths."""
    from lostmid_jax.present.plot import save_figures

    with style.context():
        fig = Figure(figsize=(3, 2))
        ax = fig.subplots()
        ax.plot([1, 2, 3], [1, 4, 9], label=r"$\rho_H(1/2)$")
        ax.set_xlabel(r"$x = j/L$")
        ax.set_title("influence \u2212 profile")
        ax.legend()
    pdf, svg = save_figures({"f": fig}, tmp_path, ("pdf", "svg"))
    data = pdf.read_bytes()
    assert b"/Subtype /Type3" not in data and b"/Subtype/Type3" not in data
    assert b"/FontFile2" in data  # the embedded TrueType program of a Type 42 font
    text = svg.read_text()
    assert "<text" in text and "influence" in text
    # the check can fail: the same figure saved with matplotlib's defaults embeds Type 3 fonts
    with matplotlib.rc_context({"pdf.fonttype": 3}):
        fig.savefig(tmp_path / "t3.pdf", format="pdf")
    assert b"/Subtype /Type3" in (tmp_path / "t3.pdf").read_bytes()


def test_side_by_side_keeps_equal_points_apart():
    """Two series with equal points (step 0 of a symlog axis included) are drawn 3 points apart, and the axes
    still scale to the data."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4, 3), dpi=100)
    ax = fig.subplots()
    ax.set_xscale("symlog", linthresh=1)
    bars = [style.side_by_side(ax, [0, 1, 10], [5.0, 6.0, 7.0], [0.5, 0.5, 0.5], i, 2, label=f"s{i}") for i in range(2)]
    first, second = (b.lines[0].get_transform().transform(b.lines[0].get_xydata()) for b in bars)
    assert np.allclose(second[:, 0] - first[:, 0], 3.0 * 100 / 72) and np.allclose(first[:, 1], second[:, 1])
    low, high = ax.get_ylim()
    assert low <= 4.5 and high >= 7.5
