"""present.mathml: the generated MathML's structure (parsed as XML), and the report's math in the page's font."""

import xml.etree.ElementTree as ET

import pytest

from lostmid_jax.present.mathml import inline


def _math(html_text: str) -> ET.Element:
    start, end = html_text.index("<math>"), html_text.index("</math>") + len("</math>")
    return ET.fromstring(html_text[start:end])


def _text(node: ET.Element) -> str:
    return "".join(node.itertext())


@pytest.mark.parametrize("formula", ["(ln 2)^{H-1}", "(ln 2)^(H-1)"])
def test_a_parenthesised_group_is_the_whole_base(formula):
    text = inline(f"the law {formula}/(H-1)!")
    assert text.startswith("the law <math>") and text.endswith("</math>/(H-1)!")
    msup = _math(text)[0]
    assert msup.tag == "msup" and len(msup) == 2
    base, exponent = msup
    assert base.tag == "mrow" and [c.tag for c in base] == ["mo", "mrow", "mo"]
    assert (base[0].text, base[-1].text) == ("(", ")")
    assert [(c.tag, c.text) for c in base[1]] == [("mi", "ln"), ("mspace", None), ("mn", "2")]
    assert _text(exponent) == "H-1" and [c.tag for c in exponent] == ["mi", "mo", "mn"]


def test_a_closing_parenthesis_without_its_opening_stays_a_lone_base():
    """Only a group inside the same stretch of text becomes a base; nothing before it is swallowed."""
    text = inline("x)^2 and 10^37.0")
    assert text.startswith("x<math><msup><mo>)</mo>") and "<mn>10</mn>" in text


def test_nested_groups_and_escaping():
    text = inline("f((a+b)^2) <b>")
    assert text.startswith("f(<math>") and text.endswith("</math>) &lt;b&gt;")
    assert _text(_math(text)[0][0]) == "(a+b)"


def test_the_page_sets_math_in_its_own_font():
    """The report's CSS gives math the body's font family (browsers default to a math font otherwise)."""
    import re

    from lostmid_jax.present import report

    fonts = dict(re.findall(r"^(body|math) \{ font-family: ([^;]+);", report._CSS, re.M))
    assert fonts.keys() == {"body", "math"} and fonts["math"] == fonts["body"] == report._FONT
