"""masks/text.py: the text specs of the priors, read and written back."""

import pytest

from lostmid_jax.masks import ALiBi, Bidirectional, Causal, Chunks, PrefixLM, SlidingWindow, Sinks
from lostmid_jax.masks.text import parse_prior, prior_spec


@pytest.mark.parametrize("text,prior", [
    ("causal", Causal()), ("bidirectional", Bidirectional()), ("window:4", SlidingWindow(4)),
    ("chunks:2+3", Chunks((2, 3))), ("chunks:2", Chunks((2, 2, 1))), ("prefix:3", PrefixLM(3)),
    ("sinks:2:3", Sinks(2, window=3)), ("alibi:4", ALiBi(4)), ("alibi:3:geometric", ALiBi(3, rule="geometric")),
    ("alibi:2:0.5/0.25", ALiBi(2, slopes=(0.5, 0.25))),
])
def test_specs_read_to_their_priors(text, prior):
    assert parse_prior(text, 5) == prior


@pytest.mark.parametrize("prior", [Causal(), SlidingWindow(3), Chunks((1, 4)), PrefixLM(2), Sinks(1, window=2),
                                   ALiBi(6), ALiBi(2, slopes=(1.0, 0.125))])
def test_written_specs_read_back(prior):
    assert parse_prior(prior_spec(prior), 5) == prior


@pytest.mark.parametrize("text,match", [("diagonal", "is not one of"), ("window:x", "expected integers"),
                                        ("alibi:2:a/b", "slopes must be numbers"), (3, "must be a string"),
                                        ("prefix:9", "prefix must be <= length")])
def test_bad_specs_are_named(text, match):
    with pytest.raises(ValueError, match=match):
        parse_prior(text, 5)
