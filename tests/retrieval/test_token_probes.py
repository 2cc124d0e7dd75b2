"""retrieval.token_probes: keys and values as ids, paired across passages (identical ids but for the fact's
place), ids in [low, V), the question ending with the key; bad designs named."""

import numpy as np
import pytest

from lostmid_jax.retrieval.token_probes import token_probes


def test_token_probes_paired_with_keys_and_values():
    probes = token_probes(50, examples=3, passages=4, length=40, candidates=3, key_tokens=2, value_tokens=2, low=5)
    assert probes.prompts.shape == (3, 4, 40) and probes.answers.shape == (3, 3, 2)
    assert probes.prompts.min() >= 5 and probes.prompts.max() < 50
    for e in range(3):
        starts = probes.fact_start[e]
        assert np.all(np.diff(starts) > 0)  # passage p + 1 holds the fact later
        facts = [probes.prompts[e, p, s:s + 4] for p, s in enumerate(starts)]
        rests = [np.delete(probes.prompts[e, p], np.arange(s, s + 4)) for p, s in enumerate(starts)]
        for fact, rest in zip(facts[1:], rests[1:]):
            np.testing.assert_array_equal(fact, facts[0])
            np.testing.assert_array_equal(rest, rests[0])
        np.testing.assert_array_equal(facts[0][2:], probes.answers[e, 0])  # the value follows the key
        np.testing.assert_array_equal(probes.prompts[e, 0, -2:], facts[0][:2])  # the question ends with the key
        assert len({tuple(a) for a in probes.answers[e]}) == 3  # distinct candidates


def test_token_probes_are_seeded_and_carry_baselines():
    a, b = token_probes(30, examples=2, length=24, seed=4), token_probes(30, examples=2, length=24, seed=4)
    np.testing.assert_array_equal(a.prompts, b.prompts)
    assert not np.array_equal(a.prompts, token_probes(30, examples=2, length=24, seed=5).prompts)
    oracle = a.baselines["oracle"]
    assert oracle.passages == 1 and oracle.prompt(0, 0).tolist()[:3] == a.prompt(0, 0)[a.fact_start[0, 0]:][:3].tolist()


@pytest.mark.parametrize("kwargs,match", [(dict(passages=1), "passages"), (dict(length=4), "length"),
                                          (dict(candidates=1), "candidates"), (dict(vocab_size=1), "vocab_size"),
                                          (dict(low=49), "low"), (dict(vocab_size=4, candidates=5), "candidates")])
def test_bad_designs_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        token_probes(**{**dict(vocab_size=50, examples=2, length=40), **kwargs})
