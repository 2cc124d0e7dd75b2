"""stats.chance: an accuracy interval above, at, or at or below chance, in words."""

import pytest

from lostmid_jax.stats.chance import ABOVE, AT, AT_OR_BELOW, against_chance


@pytest.mark.parametrize("lo,hi,expected", [(0.25, 0.40, ABOVE), (0.15, 0.30, AT), (0.20, 0.30, AT),
                                            (0.07, 0.16, f"{AT_OR_BELOW} (ties count as wrong)")])
def test_three_readings(lo, hi, expected):
    assert against_chance(lo, hi, 0.20) == expected


def test_below_names_the_scoring_rule_and_never_says_below_alone():
    text = against_chance(0.0, 0.1, 0.2, below="the argmax may be any token")
    assert text == "at or below chance (the argmax may be any token)" and not text.startswith("below")
