"""stats.format: the one NaN-aware number formatter."""

import math

import numpy as np
import pytest

from lostmid_jax.stats.format import fmt, fmt_ci, fmt_interval


@pytest.mark.parametrize("value,spec,want", [(None, ".3f", "-"), (math.nan, ".3f", "-"), (np.float32("nan"), ".2f", "-"),
                                             (-math.inf, "11.2f", "       -inf"), (1 / 3, ".3f", "0.333"),
                                             (np.float64(2.5), "+.1f", "+2.5"), (7, "d", "7")])
def test_fmt(value, spec, want):
    assert fmt(value, spec) == want


def test_interval_and_ci():
    assert fmt_interval(0.1, 0.25, ".2f") == "[0.10, 0.25]"
    assert fmt_interval(math.nan, 1.0) == "[-]" and fmt_interval(0.0, None, missing="") == ""
    assert fmt_ci(0.5, 0.4, 0.6, ".1f") == "0.5 [0.4, 0.6]"
    assert fmt_ci(0.5, math.nan, 0.6, ".1f") == "0.5"
    assert fmt_ci(0.5, None, None, ".1f", no_ci="[CI n/a]") == "0.5 [CI n/a]"
    assert fmt_ci(math.inf, 0, 1, missing="n/a") == "n/a" and fmt_ci(None, 0, 1) == "-"
