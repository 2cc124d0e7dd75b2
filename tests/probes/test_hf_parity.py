"""Parity with transformers on tiny random checkpoints saved with save_pretrained (Llama, Qwen2): the probe's
answer log-probabilities and greedy exact match, and attention_received's raw column means."""

import dataclasses

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from lostmid_jax.analysis import attention_received  # noqa: E402
from lostmid_jax.nn import load_hf  # noqa: E402
from lostmid_jax.probes import (builtin_facts, load_tokenizer, score_probes, text_probes,  # noqa: E402
                                token_probes)

from tiny_lm import save_tiny_lm  # noqa: E402

torch.set_num_threads(1)


@pytest.fixture(scope="module", params=("llama", "qwen2"))
def saved(request, tmp_path_factory):
    path = tmp_path_factory.mktemp(request.param)
    hf = save_tiny_lm(request.param, path)
    cfg, model = load_hf(path)
    return path, hf, model


def _hf_logprobs(hf, prompt, answer):
    """log P(answer | prompt) by transformers' own forward (float64 log-softmax of its float32 logits)."""
    ids = torch.tensor(np.concatenate([prompt, answer])[None], dtype=torch.long)
    with torch.no_grad():
        logits = hf(input_ids=ids).logits[0].double()
    logp = torch.log_softmax(logits, -1)
    t = len(prompt)
    return float(sum(logp[t - 1 + m, int(a)] for m, a in enumerate(answer)))


def _check(hf, probes, scores):
    worst = 0.0
    for e in range(probes.examples):
        for p in range(probes.passages):
            for c in range(probes.candidates):
                answer = probes.answers[e, c, :probes.answer_lengths[e, c]]
                worst = max(worst, abs(_hf_logprobs(hf, probes.prompts[e, p], answer) - scores.logprob[e, p, c]))
    assert worst < 1e-4, worst


def _generate(hf, prompt, n):
    ids = torch.tensor(prompt[None], dtype=torch.long)
    with torch.no_grad():
        return hf.generate(ids, max_new_tokens=n, do_sample=False, pad_token_id=0)[0, ids.shape[1]:].numpy()


def test_text_probe_logprobs_match_transformers(saved):
    path, hf, model = saved
    probes = text_probes(load_tokenizer(path), builtin_facts(3), passages=3, length=40, candidates=3)
    scores = score_probes(model, probes, batch=4)
    _check(hf, probes, scores)


def test_token_probe_multi_token_answers_match_transformers(saved):
    path, hf, model = saved
    probes = token_probes(model.cfg.vocab_size, examples=2, passages=3, length=30, candidates=3, value_tokens=2,
                          low=2)
    scores = score_probes(model, probes, batch=5)
    _check(hf, probes, scores)


def test_greedy_exact_match_is_transformers_generate(saved):
    """Example 0's right answer is set to what transformers' greedy generate writes after its first prompt, so
    the exact match must be True there; everywhere else it must agree with generate too."""
    path, hf, model = saved
    probes = token_probes(model.cfg.vocab_size, examples=2, passages=3, length=30, candidates=3, value_tokens=2,
                          low=2)
    answers = probes.answers.copy()
    answers[0, 0] = _generate(hf, probes.prompts[0, 0], 2)
    probes = dataclasses.replace(probes, answers=answers)
    scores = score_probes(model, probes, batch=5)
    assert scores.exact[0, 0]
    for e in range(probes.examples):
        for p in range(probes.passages):
            greedy = _generate(hf, probes.prompts[e, p], 2)
            assert bool(scores.exact[e, p]) == bool(np.array_equal(greedy, probes.answers[e, 0])), (e, p)


def test_attention_received_raw_is_transformers_column_mean(saved):
    path, hf, model = saved
    ids = np.random.default_rng(0).integers(0, model.cfg.vocab_size, size=24)
    with torch.no_grad():
        att = hf(input_ids=torch.tensor(ids[None]), output_attentions=True).attentions  # H x [1, N, L, L]
    expected = np.stack([a[0].double().numpy().mean(axis=-2) for a in att])  # (1/L) sum_i A_ij: [H, N, L]
    raw, ratio = attention_received(model, ids)
    assert raw.shape == expected.shape
    np.testing.assert_allclose(raw, expected, atol=1e-5, rtol=0)
    last, _ = attention_received(model, ids, layers=[-1])
    np.testing.assert_allclose(last[0], expected[-1], atol=1e-5, rtol=0)
