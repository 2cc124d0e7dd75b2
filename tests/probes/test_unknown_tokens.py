"""probes.unknown through the experiments' configs: a prompt, fact, answer or marker that the checkpoint's tokenizer
maps to its unknown id is refused before any model is loaded, in one line naming the string and the tokenizer, or
counted with allow_unknown_tokens; answers that tokenize alike are refused whatever the flag. Tokenizers are built
here with the `tokenizers` library (a BPE trained on digits, word-level ones)."""

import json

import numpy as np
import pytest

from lostmid_jax.experiments import diagnose, remedies
from lostmid_jax.experiments.script import build_config
from lostmid_jax.probes import builtin_facts, builtin_vocabulary, load_tokenizer, save_tokenizer, text_probes
from lostmid_jax.probes.checkpoint import RANDOM_TINY, tiny_config, tiny_tokenizer
from lostmid_jax.probes.tokenizer import from_tokenizers
from lostmid_jax.retrieval.tokenizer_builders import UNK, word_tokenizer


def _resolved(exp, *args, **fields):
    """The experiment's resolve step on its Config of ``fields`` (short names): where the refusals that read the
    checkpoint happen (before any model loads or run directory is claimed)."""
    return exp.resolve(build_config(exp, *args, **fields))


def _text(exp, **fields):
    """What the text checks learned about the checkpoint's tokenizer (probes.checkpoint.TextInputs)."""
    return _resolved(exp, **fields).inputs.text

SIZES = dict(passages=3, lengths=(32,), examples=4, candidates=3, attention_examples=2, profile_examples=2,
             heat_bins=8, n_boot=100)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """``tiny(tok)``: a directory with the tiny Llama's config.json, the `tokenizers` Tokenizer tok and an empty
    model.safetensors (the configs refuse before any weights are read)."""
    from lostmid_jax.nn.hf.families import config_to_hf

    root = tmp_path_factory.mktemp("unk")
    made = []

    def with_tokenizer(tok):
        path = root / f"ckpt{len(made)}"
        path.mkdir()
        (path / "config.json").write_text(json.dumps(config_to_hf(tiny_config(), dtype="float32")[1]))
        (path / "model.safetensors").write_bytes(len(b"{}").to_bytes(8, "little") + b"{}")
        save_tokenizer(tok, path)
        made.append(path)
        return str(path)

    return with_tokenizer


def _digits_bpe():
    """A BPE with an [UNK] token trained on digits only: every letter of the text maps to [UNK]."""
    import tokenizers
    from tokenizers import models, pre_tokenizers, trainers

    tok = tokenizers.Tokenizer(models.BPE(unk_token=UNK))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator([" ".join(str(n) for n in range(10, 100))] * 5,
                            trainers.BpeTrainer(vocab_size=60, special_tokens=[UNK, "[BOS]"]))
    return tok


def _facts(tmp_path, answers):
    path = tmp_path / "facts.jsonl"
    names = ("Arlo Finch", "Bea Moss", "Cyrus Reed", "Dara Vale")
    path.write_text("".join(json.dumps({"fact": f"The code of {n} is {a}.", "question": f"What is the code of {n}?",
                                        "answer": a}) + "\n" for n, a in zip(names, answers)))
    return str(path)


def test_whole_text_unknown_is_refused_naming_the_string_and_the_tokenizer(tiny):
    weights = tiny(_digits_bpe())
    with pytest.raises(ValueError) as err:
        _resolved(diagnose, weights=weights, **SIZES)
    text = str(err.value)
    assert "\n" not in text and text.startswith("facts: the fact 'The ") and "maps to the unknown token [UNK]" in text
    assert weights in text and "tokenizer.json" in text and "more of the strings" in text
    assert "--allow-unknown-tokens" in text
    count = _text(diagnose, weights=weights, allow_unknown_tokens=True, **SIZES).unknown  # two-digit answers known
    assert count.counts["fact"] == (4, 4) and count.counts["answer"] == (0, 4)


def test_only_the_answers_unknown(tiny, tmp_path):
    weights = tiny(word_tokenizer(builtin_vocabulary()))
    facts = _facts(tmp_path, ["zebra 11", "okapi 12", "tapir 13", "quokka 14"])  # [UNK] then a known number
    with pytest.raises(ValueError, match=r"^facts: the answer 'zebra 11' \(its word 'zebra'\) maps to the unknown "
                                         r"token \[UNK\] \(id 0\) of the tokenizer .*tokenizer.json; so do 7 more"):
        _resolved(diagnose, weights=weights, facts=facts, **SIZES)
    inputs = _text(diagnose, weights=weights, facts=facts, allow_unknown_tokens=True, **SIZES)
    assert inputs.unknown.counts["answer"] == (4, 4) and inputs.unknown.counts["question"] == (0, 4)
    assert inputs.answer_ids == 2
    probes = text_probes(load_tokenizer(weights), [f for f in _read(facts)], passages=3, length=32, candidates=3)
    line = inputs.unknown.line([probes])
    assert line.startswith("Unknown tokens measured (--allow-unknown-tokens): 4 of 4 answers, 4 of 4 facts")
    # every right answer is [UNK] then a number: half of its ids; the prompts hold the fact's one [UNK]
    share = np.mean(probes.prompts == 0)
    assert f"{share:.1%} of the prompt ids and 50.0% of the right answers' ids" in line


def _read(path):
    from lostmid_jax.probes import read_facts

    return read_facts(path)


def test_answers_that_tokenize_alike_are_refused_whatever_the_flag(tiny, tmp_path):
    weights = tiny(word_tokenizer(builtin_vocabulary()))
    facts = _facts(tmp_path, ["zebra", "okapi", "tapir", "quokka"])  # all one [UNK]
    with pytest.raises(ValueError, match=r"^facts: the answers 'zebra' and 'okapi' tokenize to the same ids \[0\] "
                                         r"\(the unknown token\) with the tokenizer .*not lifted"):
        _resolved(diagnose, weights=weights, facts=facts, allow_unknown_tokens=True, **SIZES)
    from tokenizers import normalizers

    lower = word_tokenizer([w.lower() for w in builtin_vocabulary()] + ["gate", "door"])
    lower.normalizer = normalizers.Lowercase()  # "Gate" and "gate": known, and the same id
    facts = _facts(tmp_path, ["Gate", "gate", "door", "Door"])
    with pytest.raises(ValueError, match=r"^facts: the answers 'Gate' and 'gate' tokenize to the same ids \[\d+\] "
                                         r"with the tokenizer"):
        _resolved(diagnose, weights=tiny(lower), facts=facts, **SIZES)


def test_markers_the_tokenizer_cannot_write(tiny):
    smoke = dict(smoke=True, remedies=("markers:0.5",))
    with pytest.raises(ValueError, match=r"^marker: the marker 'zzqx' maps to the unknown token \[UNK\] \(id 0\) of "
                                         r"the tokenizer random:tiny-llama"):
        _resolved(remedies, **dict(smoke, marker="zzqx"))
    with pytest.raises(ValueError, match=r"^marker: the marker id '0' maps to the unknown token \[UNK\]"):
        _resolved(remedies, **dict(smoke, marker="0"))
    _resolved(remedies, **smoke)  # the tiny tokenizer knows the default marker U+2060
    _resolved(remedies, **dict(smoke, marker="zzqx", remedies=("rope_base:4",)))  # no markers remedy: not encoded
    weights = tiny(word_tokenizer(builtin_vocabulary()))  # a word-level tokenizer without U+2060
    with pytest.raises(ValueError, match=r"^marker: the marker '\\u2060' maps to the unknown token \[UNK\]"):
        _resolved(remedies, **dict(smoke, weights=weights))
    assert _text(remedies, **dict(smoke, weights=weights, allow_unknown_tokens=True)).unknown.counts["marker"] == (1, 1)


def test_unknown_ids_read_from_every_tokenizer_model():
    import tokenizers
    from tokenizers import models

    assert (tiny_tokenizer().unk_id, tiny_tokenizer().unk_token) == (0, UNK)
    unigram = tokenizers.Tokenizer(models.Unigram([("<unk>", 0.0), ("a", -1.0)], unk_id=0, byte_fallback=False))
    ours = from_tokenizers(unigram, source="unigram")
    assert (ours.unk_id, ours.unk_token) == (0, "<unk>") and ours.encode("a b") == [1, 0]
    no_unk = from_tokenizers(tokenizers.Tokenizer(models.BPE({"a": 0, "b": 1}, [])), source="bpe")
    assert no_unk.unk_id is None and no_unk.unk_token is None
    probes = text_probes(tiny_tokenizer(), builtin_facts(3), passages=3, length=40, candidates=2)
    assert 0 not in probes.prompts  # the built-in text is known to the tiny tokenizer
    assert RANDOM_TINY in tiny_tokenizer().source


def _qa_with_unknown_distractor(path, unknown_at: int):
    """Multi-document QA lines (the paper's fields) whose distractor ``unknown_at`` (0-based, file order) holds the
    word 'zorblat'; every other word is in the returned vocabulary."""
    rows, words = [], set()
    for e in range(4):
        ctxs = [dict(title=f"Field {d}", text="zorblat river." if d == unknown_at else f"The river {d}.",
                     isgold=False) for d in range(3)]
        ctxs.insert(0, dict(title="Gate", text=f"The gate is {30 + e}.", isgold=True))
        rows.append(dict(question=f"What is the gate {e}?", answers=[str(30 + e)], ctxs=ctxs))
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    import re

    for text in path.read_text().split('"'):
        words.update(re.findall(r"\w+|[^\w\s]", text))
    words |= set(re.findall(r"\w+|[^\w\s]", "Document (Title: ) Question: Answer: " + " ".join(builtin_vocabulary())))
    return str(path), sorted(words - {"zorblat"})


@pytest.mark.parametrize("unknown_at, refused", [(0, True), (2, False)])
def test_a_distractor_document_the_prompt_holds_is_checked(tiny, tmp_path, unknown_at, refused):
    """With passages = 3 a prompt holds the first 2 distractors: an unknown word in the first is refused naming
    the document; one in the third (never in a prompt) is not."""
    facts, vocab = _qa_with_unknown_distractor(tmp_path / "qa.jsonl", unknown_at)
    weights = tiny(word_tokenizer(vocab))
    sizes = {**SIZES, "lengths": (64,)}
    if not refused:
        assert _text(diagnose, weights=weights, facts=facts, **sizes).unknown.unknown == 0
        return
    with pytest.raises(ValueError, match=r"^facts: the distractor 'Document \(Title: Field 0\) zorblat river\.' "
                                         r"\(its word 'zorblat'\) maps to the unknown token \[UNK\]"):
        _resolved(diagnose, weights=weights, facts=facts, **sizes)
    inputs = _text(diagnose, weights=weights, facts=facts, allow_unknown_tokens=True, **sizes)
    assert inputs.unknown.counts["distractor"] == (4, 8)
