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


def test_prompts_of_different_lengths_and_greedy_output_match_one_prompt_at_a_time():
    """The baselines' right-padded prompts score as each prompt alone, and ``greedy`` holds greedy decoding's
    ids (argmax of a forward over the prompt and the right answer's ids so far) up to its first wrong id."""
    import dataclasses

    import jax.numpy as jnp

    model = _model(position="rope")
    model.wte[...] = 3 * model.wte[...]  # sharper distributions
    probes = token_probes(40, examples=3, passages=3, length=20, candidates=3, value_tokens=2)
    oracle = probes.baselines["oracle"]
    closed = probes.baselines["closed-book"]
    assert oracle.prompt_lengths is None and oracle.length == 2 + 2 + 3  # key, value, separator and key
    assert closed.length == 7 and closed.prompt_lengths.tolist() == [[3]] * 3  # padded to the oracle's width
    mixed = dataclasses.replace(oracle, prompts=np.concatenate([oracle.prompts[:2], closed.prompts[2:]]),
                                prompt_lengths=np.array([[7], [7], [3]]))
    scores = score_probes(model, mixed, batch=2)
    for e in range(3):
        prompt = mixed.prompt(e, 0)
        assert len(prompt) == (7 if e < 2 else 3)
        for c in range(3):
            answer = mixed.answers[e, c]
            ids = jnp.asarray(np.concatenate([prompt, answer[:1]])[None])
            logits = np.asarray(model.logits(model(model.embed(ids)))[0, -2:], np.float64)
            logp = logits - np.log(np.exp(logits - logits.max(-1, keepdims=True)).sum(-1, keepdims=True)) - logits.max(-1, keepdims=True)
            np.testing.assert_allclose(scores.logprob[e, 0, c], logp[0, answer[0]] + logp[1, answer[1]], rtol=1e-4)
            if c == 0:
                best = logits.argmax(-1)
                kept = 2 if best[0] == answer[0] else 1
                assert list(scores.greedy[e, 0]) == list(best[:kept]) + [-1] * (2 - kept)
                assert scores.exact[e, 0] == (list(best) == list(answer))
