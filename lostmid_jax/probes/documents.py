"""Position-controlled retrieval documents: k passages, the answer fact in passage p, the question after.

Shapes: E examples, k passages (positions p = 1..k), T prompt tokens, C answer
candidates (candidate 0 is the right answer), A the longest candidate in tokens.

    facts = builtin_facts(40)                              # deterministic, no download (or read_facts(FILE))
    probes = text_probes(tok, facts, passages=5, length=1024)   # tok: tokenizer.load_tokenizer(...)
    probes = token_probes(vocab_size, examples=40, length=256)  # token level (lostmid_jax.retrieval): any model
    probes.prompts [E, k, T]; probes.answers [E, C, A]; probes.answer_lengths [E, C]; probes.fact_start [E, k]

**Paired design.** Example e has one fact, k filler passages, a question and
C - 1 distractor answers; its k prompts differ only in which passage holds
the fact. Each piece is encoded on its own and the ids concatenated:

    prompt(e, p) = [BOS] F_1 S F_2 S ... S F_p' ... S F_k Q
    F_p' = F_p's sentences before its middle, the fact's ids, the rest of F_p

(S the ids of the passage separator "\\n\\n", Q the ids of
"\\n\\nQuestion: <question>\\nAnswer:"), so every prompt of every example has
exactly T = ``length`` ids, every other id is identical across p, and
an answer candidate is scored after the same Q. Filler passages take the
remaining budget, T - |BOS| - (k - 1)|S| - |fact| - |Q|, split as evenly as
possible (the first r passages one id longer). Whole words and sentences
(:mod:`.filler`): a passage is whole sentences, then whole words of the next,
its last few ids (fewer than one word's) the tokenizer's "\\n" id; the fact
goes in at the sentence boundary nearest the passage's middle. Decoded with
the model's own subword tokenizer, no word is broken.

**Text.** Built-in generator (:func:`builtin_facts`, :func:`builtin_sentences`):
facts "The <attribute> of <name> is <number>." with the question "What is the
<attribute> of <name>?" and the answer "<number>" (a two-digit number);
filler sentences from fixed word lists, seeded, with no digits in them. The
user's own: :func:`read_corpus` (the sentences of the paragraphs of the .txt
files of a directory) and :func:`.fact_files.read_facts` (JSON lines of
{fact, question, answer}, or the paper's multi-document QA and key-value
formats, laid out by :func:`document_probes`: the gold document moves among
whole distractor documents). Distractor answers are other facts' answers
(numbers for the built-in set).

**Baselines.** ``probes.baselines`` holds, per example, the closed-book
prompt [BOS] Q (no passage) and the oracle prompt [BOS] F Q (the fact or gold
document alone): one-passage probe sets whose prompts differ in length.

The paired layout itself (:class:`~lostmid_jax.retrieval.design.ProbeSet`, the
assembly of a prompt, the baselines) and the token-level probe, keys and values
as random ids with no tokenizer (:func:`lostmid_jax.retrieval.token_probes.token_probes`),
live in :mod:`lostmid_jax.retrieval`, below training and probing.
"""

from __future__ import annotations

import itertools
import pathlib

import numpy as np

from .._moved import old_names
from ..retrieval.design import ProbeSet, assemble, baselines, budgets, check_design, probe_set
from ..untrusted import check_inside, parse_json, read_text_file
from ..validation import check_int
from .fact_files import DocumentExample, Fact, read_facts
from .filler import WholeWords, sentence_cut, split_sentences

SEPARATOR = "\n\n"
QUESTION = "\n\nQuestion: {question}\nAnswer:"
ANSWER = " {answer}"

_ATTRIBUTES = ("code", "room", "locker", "badge", "ticket", "seat", "table", "gate", "desk", "pin")
_FIRST = ("Arlo", "Bea", "Cyrus", "Dara", "Elio", "Fenna", "Gus", "Hana", "Ivo", "Juno", "Kit", "Lena",
          "Milo", "Nora", "Otto", "Pia", "Quin", "Rhea", "Soren", "Tess")
_LAST = ("Finch", "Moss", "Reed", "Vale", "Stone", "Brook", "Hale", "Frost", "Lane", "Wren")
_NUMBERS = tuple(str(n) for n in range(10, 100))
_ADJECTIVES = ("quiet", "old", "green", "small", "bright", "narrow", "warm", "distant", "plain", "heavy",
               "soft", "early", "busy", "calm", "wide")
_NOUNS = ("river", "garden", "market", "window", "road", "harbor", "meadow", "library", "bridge", "orchard",
          "village", "tower", "field", "kitchen", "forest", "station")
_VERBS = ("faces", "follows", "crosses", "shelters", "borders", "overlooks", "joins", "hides", "reaches", "circles")
_FILLER_WORDS = ("The", "the", "near", "and", "a", "is", "was", "by", "morning", "evening", "people", "walk",
                 "often", "there", "beside", "it")


def builtin_vocabulary() -> tuple[str, ...]:
    """Every word and mark the built-in generator writes (for a word-level tokenizer, probes.word_tokenizer)."""
    marks = (".", "?", ":", "Question", "Answer", "What", "of", "is", "The")
    return tuple(dict.fromkeys(_FILLER_WORDS + _ADJECTIVES + _NOUNS + _VERBS + _ATTRIBUTES + _FIRST + _LAST
                               + _NUMBERS + marks))


def builtin_facts(count: int, *, seed: int = 0) -> tuple[Fact, ...]:
    """``count`` distinct facts (name and attribute pairs are not repeated), deterministic in ``seed``."""
    count = check_int("count", count, 1, len(_ATTRIBUTES) * len(_FIRST) * len(_LAST))
    rng = np.random.default_rng([check_int("seed", seed, 0), 1])
    pairs = rng.choice(len(_ATTRIBUTES) * len(_FIRST) * len(_LAST), size=count, replace=False)
    facts = []
    for pair in pairs:
        attr, rest = divmod(int(pair), len(_FIRST) * len(_LAST))
        name = f"{_FIRST[rest // len(_LAST)]} {_LAST[rest % len(_LAST)]}"
        value = _NUMBERS[int(rng.integers(len(_NUMBERS)))]
        facts.append(Fact(fact=f"The {_ATTRIBUTES[attr]} of {name} is {value}.",
                          question=f"What is the {_ATTRIBUTES[attr]} of {name}?", answer=value))
    return tuple(facts)


def builtin_sentences(rng: np.random.Generator, count: int) -> list[str]:
    """``count`` filler sentences, e.g. "The quiet river faces the old garden near the market." (no digits)."""
    pick = lambda words: words[int(rng.integers(len(words)))]  # noqa: E731
    out = []
    for _ in range(count):
        sentence = f"The {pick(_ADJECTIVES)} {pick(_NOUNS)} {pick(_VERBS)} the {pick(_ADJECTIVES)} {pick(_NOUNS)}"
        if rng.random() < 0.5:
            sentence += f" near the {pick(_NOUNS)}"
        out.append(sentence + ".")
    return out


def read_corpus(directory) -> tuple[str, ...]:
    """The paragraphs (blocks separated by blank lines) of the .txt files of ``directory``, in file-name order.

    Raises:
      ValueError: naming ``corpus`` when the directory is missing or holds no paragraph.
    """
    path = pathlib.Path(directory)
    if not path.is_dir():
        raise ValueError(f"corpus must be a directory of .txt files, got {str(directory)!r}")
    paragraphs, skipped = [], []
    for file in sorted(path.glob("*.txt")):
        try:
            check_inside(path, file, "corpus")
        except ValueError as err:  # a link out of the corpus, a FIFO, a directory named *.txt
            skipped.append(str(err))
            continue
        text = read_text_file(file, "corpus").replace("\r\n", "\n")
        paragraphs += [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]
    if not paragraphs:
        why = f"; skipped: {skipped[0]}" + (f" (and {len(skipped) - 1} more)" if len(skipped) > 1 else "") \
            if skipped else ""
        raise ValueError(f"corpus {str(directory)!r} holds no paragraph in a .txt file{why}")
    return tuple(paragraphs)


def _sentences(rng):
    while True:
        yield builtin_sentences(rng, 1)[0]


def _distractors(answers: list[str], index: int, count: int, rng) -> list[str]:
    others = sorted(set(answers) - {answers[index]})
    if len(others) < count:
        raise ValueError(f"candidates: {count + 1} answer candidates need {count} distinct other answers among "
                         f"the facts, found {len(others)}")
    return [others[i] for i in rng.choice(len(others), size=count, replace=False)]


def _filler(encode, corpus, rng) -> WholeWords:
    """The filler: the corpus' sentences in order (cycling), or the built-in generator's."""
    if corpus is None:
        return WholeWords(encode, _sentences(rng))
    sentences = [s for paragraph in corpus for s in split_sentences(paragraph)]
    if not sentences:
        raise ValueError("corpus: no paragraph holds a sentence")
    return WholeWords(encode, itertools.cycle(sentences))


def text_probes(tokenizer, facts, *, passages: int = 5, length: int = 1024, candidates: int = 5,
                corpus=None, seed: int = 0) -> ProbeSet:
    """One example per fact: k prompts of exactly ``length`` ids (module docstring) and the answer candidates.

    Args:
      tokenizer: a :class:`.tokenizer.TextTokenizer`.
      facts: the facts (:func:`builtin_facts`, :func:`.fact_files.read_facts`), one example each; examples of
        the paper's formats (:class:`.fact_files.DocumentExample`) go to :func:`document_probes`.
      passages: k >= 2 passages per document.
      length: T, the prompt length in ids (the question included).
      candidates: C >= 2 answers scored per example (1 right, C - 1 other facts' answers).
      corpus: None (built-in filler sentences) or paragraphs (:func:`read_corpus`), their sentences used in
        order (cycling).
      seed: the filler's and the distractors' seed.
    """
    passages, length, candidates = check_design(passages, length, candidates)
    facts = tuple(facts)
    if not facts:
        raise ValueError("facts must hold at least one fact")
    if isinstance(facts[0], DocumentExample):
        return document_probes(tokenizer, facts, passages=passages, length=length, candidates=candidates,
                               corpus=corpus, seed=seed)
    rng = np.random.default_rng([check_int("seed", seed, 0), 2])
    encode = tokenizer.encode
    head = [] if tokenizer.bos_id is None else [int(tokenizer.bos_id)]
    sep = encode(SEPARATOR)
    words = _filler(encode, corpus, rng)
    prompts, starts, fact_ids, tails = [], [], [], []
    for e, fact in enumerate(facts):
        fact_ids.append(encode(" " + fact.fact))
        tails.append(encode(QUESTION.format(question=fact.question)))
        fixed = len(head) + (passages - 1) * len(sep) + len(fact_ids[-1]) + len(tails[-1])
        if length - fixed < 2 * passages:
            raise ValueError(f"facts: fact {e + 1} ({fact.fact[:40]!r}...) is {len(fact_ids[-1])} ids long and its "
                             f"question {len(tails[-1])} ids: with {passages} passages of >= 2 ids they need length "
                             f">= {fixed + 2 * passages}, and length is {length}; shorten the fact or raise length")
        pieces, ends = zip(*(words.take(b) for b in budgets(length - fixed, passages)))
        cuts = [sentence_cut(len(piece), end) for piece, end in zip(pieces, ends)]
        rows = [assemble(list(pieces), cuts, fact_ids[-1], p, sep, head, tails[-1]) for p in range(passages)]
        prompts.append([r[0] for r in rows])
        starts.append([r[1] for r in rows])
    return _text_set(encode, facts, head, fact_ids, tails, prompts, starts, candidates, rng)


def document_probes(tokenizer, examples, *, passages: int = 5, length: int = 1024, candidates: int = 5,
                    corpus=None, seed: int = 0) -> ProbeSet:
    """The paper's design: the gold document and the first k - 1 distractors, the gold at passage p = 1..k.

    prompt(e, p) = [BOS] W S D_1 S ... S D_k Q, D_p the gold document, the others the distractors in file
    order; every document whole; W whole words of filler (the built-in generator or ``corpus``) bringing the
    prompt to exactly ``length`` ids (none when the documents and question fill it; with fewer than
    |S| + 1 ids to fill, W is filler alone, without S). Arguments as :func:`text_probes`; ``examples`` are
    :class:`.fact_files.DocumentExample`.

    Raises:
      ValueError: naming ``passages`` (an example with fewer than k - 1 distractors) or ``lengths`` (T below
        what the longest example's documents and question need, which it names).
    """
    passages, length, candidates = check_design(passages, length, candidates)
    rng = np.random.default_rng([check_int("seed", seed, 0), 2])
    encode = tokenizer.encode
    head = [] if tokenizer.bos_id is None else [int(tokenizer.bos_id)]
    sep = encode(SEPARATOR)
    for e, ex in enumerate(examples):
        if len(ex.distractors) < passages - 1:
            raise ValueError(f"passages: example {e} holds {len(ex.distractors)} distractor documents; "
                             f"passages={passages} needs {passages - 1} (lower passages)")
    docs, fact_ids, tails, needed = _document_ids(tokenizer, examples, passages)
    check_document_length(needed, length, passages)
    words = _filler(encode, corpus, rng)
    prompts, starts = [], []
    for d, f, t, n in zip(docs, fact_ids, tails, needed):
        budget = length - n
        lead = words.take(budget - len(sep))[0] + sep if budget > len(sep) else words.take(budget)[0]
        rows = [_documents_row(head + lead, d, f, p, sep, t) for p in range(passages)]
        prompts.append([r[0] for r in rows])
        starts.append([r[1] for r in rows])
    return _text_set(encode, examples, head, fact_ids, tails, prompts, starts, candidates, rng)


def _document_ids(tokenizer, examples, passages: int):
    """Per example: the first k - 1 distractors' ids, the gold's, the question's, and the ids the prompt needs
    without filler (BOS, k documents, k - 1 separators, the question)."""
    encode = tokenizer.encode
    head = 0 if tokenizer.bos_id is None else 1
    sep = len(encode(SEPARATOR))
    docs = [[encode(" " + d) for d in ex.distractors[:passages - 1]] for ex in examples]
    fact_ids = [encode(" " + ex.gold) for ex in examples]
    tails = [encode(QUESTION.format(question=ex.question)) for ex in examples]
    needed = [head + (passages - 1) * sep + len(f) + sum(map(len, d)) + len(t) for d, f, t in zip(docs, fact_ids, tails)]
    return docs, fact_ids, tails, needed


def check_document_length(needed: list[int], length: int, passages: int) -> None:
    """ValueError naming ``lengths`` when T = ``length`` is below the longest example's ``needed`` ids."""
    if max(needed) > length:
        raise ValueError(f"lengths: T = {length} holds fewer ids than example {int(np.argmax(needed))}'s "
                         f"{passages} documents and question ({max(needed)} ids); raise lengths to >= "
                         f"{max(needed)} or lower passages")


def documents_needed(tokenizer, examples, passages: int) -> list[int]:
    """Per example, the ids of its k documents and question with BOS and separators: the shortest T that holds
    it (no filler)."""
    return _document_ids(tokenizer, examples, passages)[3]


def _documents_row(head, docs, gold, passage: int, sep, tail) -> tuple[list[int], int]:
    """head D_1 S ... S D_k tail with ``gold`` at ``passage`` (0-based), ``docs`` in order around it."""
    out, start = list(head), -1
    for i, doc in enumerate(docs[:passage] + [None] + docs[passage:]):
        if i:
            out += sep
        if doc is None:
            start = len(out)
            out += gold
        else:
            out += doc
    return out + tail, start


def _text_set(encode, facts, head, fact_ids, tails, prompts, starts, candidates: int, rng) -> ProbeSet:
    """The ProbeSet of text prompts: the candidates (the right answer, C - 1 other facts' answers) and the
    closed-book and oracle baselines."""
    answers_text = [f.answer for f in facts]
    choices = [tuple([f.answer] + _distractors(answers_text, e, candidates - 1, rng)) for e, f in enumerate(facts)]
    answers = [[encode(ANSWER.format(answer=a)) for a in c] for c in choices]
    return probe_set(prompts, starts, answers, [len(f) for f in fact_ids], "text", candidate_text=tuple(choices),
                     baselines=baselines(head, fact_ids, tails, answers, "text", tuple(choices)))


__all__ = ["ANSWER", "DocumentExample", "Fact", "QUESTION", "SEPARATOR", "builtin_facts", "builtin_sentences",
           "builtin_vocabulary", "document_probes", "read_corpus", "read_facts", "text_probes"]


__getattr__ = old_names(__name__)  # token_probes: lostmid_jax._moved.NAMES (warns once, for one release)
