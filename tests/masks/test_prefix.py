"""masks/prefix.py: the prefix-LM mask (a bidirectional prefix of n tokens, causal after it)."""

import numpy as np
import pytest

from lostmid_jax.masks import PrefixLM


def test_rule_counts_and_key_ranges():
    i, j = np.indices((6, 6))
    prior = PrefixLM(3)
    assert np.array_equal(prior.allows(i, j), (j <= i) | (j < 3))
    assert prior.counts(6).tolist() == [3, 3, 3, 4, 5, 6]  # c_i = max(i, n)
    assert prior.key_range((0, 2), 6) == (0, 3) and prior.key_range((4, 6), 6) == (0, 6)


def test_short_prefixes_are_causal_and_long_ones_refused():
    assert PrefixLM(0).causal_at() and PrefixLM(1).causal_at() and not PrefixLM(2).causal_at()
    assert PrefixLM(6).check(6) == PrefixLM(6)
    with pytest.raises(ValueError, match="prefix must be <= length = 5, got 6"):
        PrefixLM(6).check(5)
    with pytest.raises(ValueError, match="prefix"):
        PrefixLM(-1)
