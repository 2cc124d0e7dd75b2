"""masks/kinds.py: the one validation of a prior against L, and whether a prior is the causal mask at L."""

import pytest

from lostmid_jax.masks import ALiBi, Bidirectional, Causal, Chunks, PrefixLM, SlidingWindow, Sinks
from lostmid_jax.masks.kinds import PRIORS, causal_here, check_prior


def test_every_prior_kind_is_listed():
    assert set(PRIORS) == {Causal, Bidirectional, SlidingWindow, Chunks, PrefixLM, Sinks, ALiBi}


def test_check_prior_returns_a_fitting_prior_and_refuses_others():
    prior = Chunks((2, 3))
    assert check_prior(prior, 5) is prior
    with pytest.raises(ValueError, match="prior must be one of Causal"):
        check_prior("causal", 5)
    with pytest.raises(ValueError):
        check_prior(Chunks((2, 3)), 6)  # lengths must sum to L
    with pytest.raises(ValueError, match="length"):
        check_prior(Causal(), 0)


@pytest.mark.parametrize("prior,length,expected", [
    (Causal(), None, True), (Bidirectional(), 4, False), (PrefixLM(1), 4, True), (PrefixLM(2), 4, False),
    (SlidingWindow(4), 4, True), (SlidingWindow(3), 4, False), (Chunks((4,)), 4, True), (Chunks((2, 2)), 4, False),
])
def test_causal_here(prior, length, expected):
    assert causal_here(prior, length) is expected
