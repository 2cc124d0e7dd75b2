"""probes.documents: the paired design (identical ids but for the fact's place), exact length, user files,
and bad input named before any work (the token-level probe: tests/retrieval/test_token_probes.py)."""

import json

import numpy as np
import pytest

from lostmid_jax.probes import (builtin_facts, builtin_vocabulary, load_tokenizer, read_corpus, read_facts,
                                save_tokenizer, text_probes, word_tokenizer)
from lostmid_jax.probes.documents import QUESTION, builtin_sentences
from lostmid_jax.retrieval.tokenizer_builders import bpe_tokenizer


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
    oracle, closed = probes.baselines["oracle"], probes.baselines["closed-book"]
    for e, fact in enumerate(facts):  # the baselines: the fact alone and the question, the question alone
        question = tok.encode(QUESTION.format(question=fact.question))
        assert list(closed.prompt(e, 0)) == [tok.bos_id] + question
        assert list(oracle.prompt(e, 0)) == [tok.bos_id] + tok.encode(" " + fact.fact) + question
    np.testing.assert_array_equal(oracle.answers, probes.answers)
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


@pytest.fixture(scope="module")
def bpe(tmp_path_factory):
    """A byte-level BPE of 300 ids trained here on the built-in text: most words are several ids ("meadow" is
    "Ġm e ad ow"), so a cut between ids is usually inside a word."""
    text = builtin_sentences(np.random.default_rng(0), 300) + [f"{f.fact} {f.question}" for f in builtin_facts(200)]
    path = save_tokenizer(bpe_tokenizer(text, 300), tmp_path_factory.mktemp("bpe"))
    tok = load_tokenizer(path)
    assert len(tok.encode(" meadow")) > 2 and tok.bos_id == 1
    return tok


def _words(text: str) -> list[str]:
    return [w.strip(".?:") for w in text.replace("[BOS]", " ").split()]


@pytest.mark.parametrize("length", [110, 150, 301])
def test_whole_words_and_sentences_with_a_subword_tokenizer(bpe, length):
    """Decoded with the BPE, every word of every prompt is a whole word of the generator, and the fact starts
    a sentence (after a sentence's end, the passage separator or the BOS) at every position p."""
    facts = builtin_facts(3, seed=4)
    probes = text_probes(bpe, facts, passages=4, length=length, candidates=3)
    assert probes.prompts.shape == (3, 4, length)
    _paired(probes)
    vocabulary = set(builtin_vocabulary())
    for e, fact in enumerate(facts):
        for p in range(4):
            row, start = probes.prompts[e, p], probes.fact_start[e, p]
            assert set(_words(bpe.decode(row))) <= vocabulary, bpe.decode(row)
            before, after = bpe.decode(row[:start]), bpe.decode(row[start:start + probes.fact_length[e]])
            assert after == " " + fact.fact
            assert before.endswith((".", "\n", "[BOS]")), before[-30:]


def _jsonl(path, rows):
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def _qa_rows(count=3, docs=4):
    """Lines in the multi-document QA format (made up here): the gold ctx second, marked isgold."""
    rows = []
    for e in range(count):
        ctxs = [dict(title=f"Other {e} {d}", text=f"The quiet river faces the old garden {d}.", hasanswer=False,
                     isgold=False) for d in range(docs)]
        ctxs.insert(1, dict(title=f"Place {e}", text=f"The gate of place {e} is number {40 + e}.", hasanswer=True,
                            isgold=True))
        rows.append(dict(question=f"What is the gate of place {e}?", answers=[str(40 + e), f"number {40 + e}"],
                         ctxs=ctxs))
    return rows


def _gold_among_distractors(bpe, probes, e, ex, first: str):
    """Decoded, prompt (e, p) holds k whole documents: the gold at p, the first k - 1 distractors in file order
    around it, the fact's ids the gold's."""
    k = probes.passages
    for p in range(k):
        row = probes.prompts[e, p]
        text = bpe.decode(row)
        docs = text[text.index(first):text.index("\n\nQuestion")].split("\n\n ")
        assert docs[p] == ex.gold and [d for i, d in enumerate(docs) if i != p] == list(ex.distractors[:k - 1])
        assert bpe.decode(row[probes.fact_start[e, p]:][:probes.fact_length[e]]) == " " + ex.gold


def test_multi_document_qa_places_the_gold_document(tmp_path, bpe):
    examples = read_facts(_jsonl(tmp_path / "qa.jsonl", _qa_rows()))
    assert examples[0].answers == ("40", "number 40") and examples[0].answer == "40" and len(examples[0].distractors) == 4
    probes = text_probes(bpe, examples, passages=3, length=230, candidates=3)
    assert probes.prompts.shape == (3, 3, 230)
    for e, ex in enumerate(examples):
        _gold_among_distractors(bpe, probes, e, ex, "Document")
        assert bpe.decode(probes.baselines["oracle"].prompt(e, 0)).startswith(f"[BOS] Document (Title: Place {e})")
    with pytest.raises(ValueError, match=r"lengths: T = 60 .* raise lengths to >= \d+"):
        text_probes(bpe, examples, passages=3, length=60, candidates=3)
    with pytest.raises(ValueError, match="passages: example 0 holds 4 distractor documents; passages=6 needs 5"):
        text_probes(bpe, examples, passages=6, length=400, candidates=3)


def test_key_value_retrieval_places_the_gold_pair(tmp_path, bpe):
    rows = [dict(ordered_kv_records=[[f"k{e}{i}", f"v{e}{i}"] for i in range(5)], key=f"k{e}2", value=f"v{e}2")
            for e in range(3)]
    examples = read_facts(_jsonl(tmp_path / "kv.jsonl", rows))
    assert examples[1].fact == '"k12": "v12"' and examples[1].answer == "v12"
    assert examples[1].distractors == ('"k10": "v10"', '"k11": "v11"', '"k13": "v13"', '"k14": "v14"')
    assert examples[1].question == 'What is the value of the key "k12"?'
    probes = text_probes(bpe, examples, passages=5, length=150, candidates=2)
    for e, ex in enumerate(examples):
        _gold_among_distractors(bpe, probes, e, ex, '"k')


@pytest.mark.parametrize("row,match", [
    (dict(question="q", answers=["a"]), r"missing field 'ctxs' for multi-document QA"),
    (dict(ordered_kv_records=[], key="k"), r"missing field 'value' for key-value retrieval"),
    (dict(fact="f", question="q"), r"missing field 'answer' for facts"),
    (dict(question="q", answers=["a"], ctxs=[dict(title="t", text="x")]), "no ctx is marked gold"),
])
def test_a_file_of_no_known_format_is_named(tmp_path, row, match):
    path = _jsonl(tmp_path / "odd.jsonl", [row])
    with pytest.raises(ValueError, match=f"facts: line 1 of .*odd.jsonl.*{match}") as err:
        read_facts(path)
    assert "\n" not in str(err.value)
