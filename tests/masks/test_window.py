"""masks.window: the field names shared with nn (window, sinks) and the old theory keywords (width, count)."""

import dataclasses

import pytest

from lostmid_jax import masks, theory


def test_old_keywords_and_attributes_still_work():
    assert masks.SlidingWindow(width=5) == masks.SlidingWindow(5) == masks.SlidingWindow(window=5)
    assert masks.SlidingWindow(5).width == 5
    assert masks.Sinks(count=4, window=64) == masks.Sinks(4, 64) == masks.Sinks(sinks=4, window=64)
    assert masks.Sinks(4, 64).count == 4
    assert dataclasses.replace(masks.Sinks(4, 64), window=8) == masks.Sinks(4, 8)
    assert theory.SlidingWindow is masks.SlidingWindow and theory.Sinks is masks.Sinks


@pytest.mark.parametrize("make", [lambda: masks.SlidingWindow(3, width=3), lambda: masks.Sinks(2, count=2)])
def test_new_and_old_name_together_are_refused(make):
    with pytest.raises(ValueError, match="old name"):
        make()
