"""probes.documents: the paired design (identical ids but for the fact's place), exact length, user files,
the token-level probe, and bad input named before any work."""

import json

import numpy as np
import pytest

from lostmid_jax.probes import (builtin_facts, builtin_vocabulary, load_tokenizer, read_corpus, read_facts,
                                save_tokenizer, text_probes, token_probes, word_tokenizer)
from lostmid_jax.probes.documents import QUESTION


@pytest.fixture(scope="module")
def tok(tmp_path_factory):
    path = save_tokenizer(word_tokenizer(builtin_vocabulary()), tmp_path_factory.mktemp("tok"))
    return load_tokenizer(path)


def _paired(probes):
    """Removing the fact's ids from each prompt leaves the same ids for every passage p."""
    e_count, k, _ = probes.prompts.shape
    for e in range(e_count):
        fact_len = probes.fact_length[e]
        rests = []
        for p in range(k):
            row, start = probes.prompts[e, p], probes.fact_start[e, p]
            rests.append(np.concatenate([row[:start], row[start + fact_len:]]))
            np.testing.assert_array_equal(row[start:start + fact_len], probes.prompts[e, 0][
                probes.fact_start[e, 0]:probes.fact_start[e, 0] + fact_len])
        for rest in rests[1:]:
            np.testing.assert_array_equal(rest, rests[0])
        assert np.all(np.diff(probes.fact_start[e]) > 0)  # passage p + 1 holds it later


def test_text_probes_are_paired_and_exactly_long(tok):
    facts = builtin_facts(4, seed=3)
    probes = text_probes(tok, facts, passages=5, length=120, candidates=4)
    assert probes.prompts.shape == (4, 5, 120) and probes.answers.shape == (4, 4, 1)
    assert np.all(probes.prompts[:, :, 0] == tok.bos_id)  # one BOS, in front
    _paired(probes)
    # the fact's ids are its sentence's, and the prompt ends with the question's ids
    for e, fact in enumerate(facts):
        ids = tok.encode(" " + fact.fact)
        start = probes.fact_start[e, 2]
        assert list(probes.prompts[e, 2, start:start + len(ids)]) == ids and probes.fact_length[e] == len(ids)
        tail = tok.encode(QUESTION.format(question=fact.question))
        assert list(probes.prompts[e, 0, -len(tail):]) == tail
        assert list(probes.answers[e, 0, :1]) == tok.encode(" " + fact.answer)
        assert len(set(map(tuple, probes.answers[e]))) == 4  # distinct candidates
    again = text_probes(tok, facts, passages=5, length=120, candidates=4)
    np.testing.assert_array_equal(again.prompts, probes.prompts)  # deterministic


def test_builtin_facts_are_distinct_and_seeded():
    facts = builtin_facts(50, seed=1)
    assert len({(f.question) for f in facts}) == 50 and facts == builtin_facts(50, seed=1)
    assert facts != builtin_facts(50, seed=2)
    assert all(f.answer.isdigit() and f.answer in f.fact for f in facts)


def test_user_corpus_and_facts(tmp_path, tok):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text("The quiet river faces the old garden.\n\nThe busy market joins the road.\n")
    (corpus / "b.txt").write_text("The green meadow borders the forest.\n")
    paragraphs = read_corpus(corpus)
    assert paragraphs == ("The quiet river faces the old garden.", "The busy market joins the road.",
                          "The green meadow borders the forest.")
    facts_file = tmp_path / "facts.jsonl"
    rows = [dict(fact=f"The code of Arlo Finch is {n}.", question="What is the code of Arlo Finch?",
                 answer=str(n)) for n in (11, 22, 33)]
    facts_file.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    facts = read_facts(facts_file)
    assert [f.answer for f in facts] == ["11", "22", "33"]
    probes = text_probes(tok, facts, passages=3, length=60, candidates=3, corpus=paragraphs)
    assert probes.prompts.shape == (3, 3, 60)
    _paired(probes)


def test_token_probes_paired_with_keys_and_values():
    probes = token_probes(50, examples=3, passages=4, length=40, candidates=3, key_tokens=2, value_tokens=2, low=5)
    assert probes.prompts.shape == (3, 4, 40) and probes.answers.shape == (3, 3, 2)
    assert probes.prompts.min() >= 5 and probes.prompts.max() < 50
    _paired(probes)
    for e in range(3):
        start = probes.fact_start[e, 0]
        key = probes.prompts[e, 0, start:start + 2]
        np.testing.assert_array_equal(probes.prompts[e, 0, start + 2:start + 4], probes.answers[e, 0])
        np.testing.assert_array_equal(probes.prompts[e, 0, -2:], key)  # the question ends with the key


@pytest.mark.parametrize("kwargs,match", [(dict(passages=1), "passages"), (dict(passages=0), "passages"),
                                          (dict(length=20), "length"), (dict(candidates=1), "candidates"),
                                          (dict(candidates=9), "candidates")])
def test_bad_design_is_named(tok, kwargs, match):
    with pytest.raises(ValueError, match=match):
        text_probes(tok, builtin_facts(5), **{**dict(passages=5, length=120, candidates=3), **kwargs})


def test_bad_files_are_named(tmp_path):
    with pytest.raises(ValueError, match="corpus"):
        read_corpus(tmp_path / "missing")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"fact": "x", "question": "y"}\n')
    with pytest.raises(ValueError, match="facts: line 1"):
        read_facts(bad)
    with pytest.raises(ValueError, match="passages"):
        token_probes(50, examples=2, passages=1)
