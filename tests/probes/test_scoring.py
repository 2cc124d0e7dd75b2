"""probes.scoring: refusals before any work (learned positions, no vocabulary, ids out of range), and the
rank / log-probability bookkeeping on a model whose answer is known (ties count against the right answer)."""

import numpy as np
import pytest
from flax import nnx

from lostmid_jax.nn import Decoder, DecoderConfig
from lostmid_jax.probes import score_probes, token_probes


def _model(**kwargs):
    cfg = DecoderConfig(depth=1, width=16, heads=2, vocab_size=40, **kwargs)
    return Decoder(cfg, rngs=nnx.Rngs(0))


def test_length_beyond_learned_positions_is_named():
    model = _model(position="learned", max_positions=32)
    probes = token_probes(40, examples=2, passages=3, length=32, candidates=3)  # needs 32 positions: fits
    score_probes(model, probes)
    long = token_probes(40, examples=2, passages=3, length=33, candidates=3)
    with pytest.raises(ValueError, match=r"^length: the probe needs 33 positions.*max_positions=32"):
        score_probes(model, long)


def test_no_vocabulary_and_ids_out_of_range_are_named():
    probes = token_probes(60, examples=2, passages=3, length=20, candidates=3, low=45)
    with pytest.raises(ValueError, match="^probes: ids"):
        score_probes(_model(), probes)
    no_vocab = Decoder(DecoderConfig(depth=1, width=16, heads=2), rngs=nnx.Rngs(0))
    with pytest.raises(ValueError, match="^model: "):
        score_probes(no_vocab, probes)


def test_uniform_model_ranks_every_answer_last_and_logprob_is_minus_log_v():
    """Zero LM head: every next-id distribution is uniform, log P = -n log V, and ties never credit the answer."""
    model = _model(position="rope")
    model.wte[...] = np.zeros(model.wte[...].shape, np.float32)  # tied head: all logits 0
    probes = token_probes(40, examples=2, passages=3, length=20, candidates=3, value_tokens=2)
    scores = score_probes(model, probes, batch=3)
    np.testing.assert_allclose(scores.logprob, -2 * np.log(40), rtol=1e-6)
    assert np.all(scores.rank == 3) and not scores.correct.any()
    first_is_zero = probes.answers[:, 0, 0] == 0  # greedy picks id 0 from a flat row
    assert np.array_equal(scores.exact, np.broadcast_to((first_is_zero & (probes.answers[:, 0, 1] == 0))[:, None], scores.exact.shape))
