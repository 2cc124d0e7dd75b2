"""The verdict generators' accuracy-against-chance phrases (diagnose, micro_training) in the three cases:
above, at, and below chance ("at or below chance" with the scoring rule, never "at chance level" for an
interval below chance)."""

import numpy as np
import pytest

from lostmid_jax.experiments.diagnose.claims import _position_lines
from lostmid_jax.experiments.micro_training.claims import _against_chance
from lostmid_jax.probes.accuracy_by_passage import position_test
from lostmid_jax.probes.scoring import ProbeScores


def _scores(right: int, examples: int = 20, passages: int = 5, candidates: int = 5) -> ProbeScores:
    """``right`` of the examples x passages prompts ranked first (spread over the passages), the rest rank 2."""
    rank = np.full(examples * passages, 2)
    rank[np.linspace(0, rank.size - 1, right).astype(int) if right else []] = 1
    rank = rank.reshape(examples, passages)
    logprob = np.where(rank[..., None] == 1, -1.0, -2.0) * np.ones((examples, passages, candidates))
    return ProbeScores(logprob=logprob, rank=rank, exact=rank == 1, candidates=candidates)


@pytest.mark.parametrize("right,reading", [(60, "above chance."), (20, "at chance (the 95% CI includes it)"),
                                           (10, "at or below chance (ties count as wrong)")])
def test_diagnose_position_lines(right, reading):
    """100 prompts, chance 1/5: 60 right (CI [0.50, 0.69]) is above, 20 (CI [0.13, 0.29]) at, and 10
    (CI [0.06, 0.17]) at or below chance; only the last two say the test cannot show a dip."""
    lines = _position_lines(64, position_test(_scores(right), n_boot=200, seed=0))
    overall = [line for line in lines if "Overall accuracy" in line]
    assert len(overall) == 1 and f"chance 0.20: {reading}" in overall[0], lines
    assert ("cannot show a dip" in overall[0]) == (right < 60)
    assert not any("at chance level" in line for line in lines)


@pytest.mark.parametrize("m,half,reading", [(0.5, 0.1, "above chance"), (0.2, 0.1, "at chance (the 95% CI includes it)"),
                                            (0.0, 0.0, "at or below chance (the argmax may be any token, not only a "
                                                       "context value)"),
                                            (0.3, np.nan, "undetermined (one seed: no CI)")])
def test_micro_training_accuracy_against_chance(m, half, reading):
    assert _against_chance(m, half, 0.167) == reading


@pytest.mark.parametrize("m,half,reading", [(0.05, 0.01, "above chance"),
                                            (0.01, 0.005, "at or below chance (untrained: a guess over all V = 100 "
                                                          "tokens, chance 1/V = 0.0100; the 95% CI includes it)"),
                                            (0.0, 0.0, "at or below chance (untrained: a guess over all V = 100 "
                                                       "tokens, chance 1/V = 0.0100)")])
def test_micro_training_step_0_is_read_against_one_over_v(m, half, reading):
    """The untrained model at step 0 guesses over the whole vocabulary: judged against 1/V, never 'below'."""
    from types import SimpleNamespace

    from lostmid_jax.experiments.micro_training.claims import accuracy_reading

    assert accuracy_reading(SimpleNamespace(vocab=100), m, half, 0) == reading
