"""theory/schedules.py: the power-law schedule a_l = a0 (l + 1)^(-b), and its argument checks."""

import pytest

from lostmid_jax.theory.schedules import power_law_schedule


def test_power_law_values():
    assert power_law_schedule(4, 0.6, 2.0) == pytest.approx((0.6, 0.15, 0.6 / 9, 0.0375), rel=1e-15)
    assert power_law_schedule(3, 0.5, 0) == (0.5, 0.5, 0.5)
    assert power_law_schedule(0, 0.5, 1.0) == ()


@pytest.mark.parametrize("args,name", [((2, 1.5, 1.0), "a0"), ((2, 0.5, -1.0), "b"), ((-1, 0.5, 1.0), "depth"),
                                       ((2, 0.5, float("nan")), "b")])
def test_bad_arguments_are_named(args, name):
    with pytest.raises(ValueError, match=name):
        power_law_schedule(*args)


def test_a_huge_depth_is_refused_before_building_the_tuple():
    with pytest.raises(ValueError):
        power_law_schedule(10**12, 0.5, 1.0)
