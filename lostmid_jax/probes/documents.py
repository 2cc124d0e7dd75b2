"""Position-controlled retrieval documents: k passages, the answer fact in passage p, the question after.

Shapes: E examples, k passages (positions p = 1..k), T prompt tokens, C answer
candidates (candidate 0 is the right answer), A the longest candidate in tokens.

    facts = builtin_facts(40)                              # deterministic, no download (or read_facts(FILE))
    probes = text_probes(tok, facts, passages=5, length=1024)   # tok: tokenizer.load_tokenizer(...)
    probes = token_probes(vocab_size, examples=40, length=256)  # token level: no tokenizer, any model
    probes.prompts [E, k, T]; probes.answers [E, C, A]; probes.answer_lengths [E, C]; probes.fact_start [E, k]

**Paired design.** Example e has one fact, k filler passages, a question and
C - 1 distractor answers; its k prompts differ only in which passage holds
the fact. Each piece is encoded on its own and the ids concatenated:

    prompt(e, p) = [BOS] F_1 S F_2 S ... S F_p' ... S F_k Q
    F_p' = first half of F_p, the fact's ids, second half of F_p

(S the ids of the passage separator "\\n\\n", Q the ids of
"\\n\\nQuestion: <question>\\nAnswer:"), so every prompt of every example has
exactly T = ``length`` ids, every other id is identical across p, and
an answer candidate is scored after the same Q. Filler passages take the
remaining budget, T - |BOS| - (k - 1)|S| - |fact| - |Q|, split as evenly as
possible (the first r passages one id longer); a passage's filler is its
sentences' ids, cut to its budget.

**Text.** Built-in generator (:func:`builtin_facts`, :func:`builtin_sentences`):
facts "The <attribute> of <name> is <number>." with the question "What is the
<attribute> of <name>?" and the answer "<number>" (a two-digit number);
filler sentences from fixed word lists, seeded, with no digits in them. The
user's own: :func:`read_corpus` (one passage per paragraph of the .txt files
of a directory) and :func:`read_facts` (JSON lines {fact, question, answer}).
Distractor answers are other facts' answers (numbers for the built-in set).

**Tokens.** :func:`token_probes`: passages of random filler ids, the fact a
key of ``key_tokens`` ids followed by its value of ``value_tokens`` ids, the
question a separator id then the key, the answer the value; distractors are
other values. Ids are drawn from [``low``, vocab_size), so a model's special
ids can be kept out.
"""

from __future__ import annotations

import dataclasses
import itertools
import pathlib

import numpy as np

from ..untrusted import check_inside, parse_json, read_text_file
from ..validation import check_int

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


@dataclasses.dataclass(frozen=True)
class Fact:
    """One retrievable fact: the sentence placed in a passage, the question and its answer."""

    fact: str
    question: str
    answer: str


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


def read_facts(file) -> tuple[Fact, ...]:
    """Facts from a JSON-lines file, one {"fact": ..., "question": ..., "answer": ...} object per line.

    Raises:
      ValueError: naming ``facts`` and the line for a missing file, bad JSON or a missing / empty field.
    """
    path = pathlib.Path(file)
    if not path.is_file() or path.is_symlink():
        raise ValueError(f"facts must be a JSON-lines file, got {str(file)!r}")
    facts = []
    for number, line in enumerate(read_text_file(path, "facts").splitlines(), 1):
        if not line.strip():
            continue
        row = parse_json(line, f"facts: line {number} of {str(file)!r}")
        if not isinstance(row, dict) or any(not isinstance(row.get(k), str) or not row[k].strip()
                                            for k in ("fact", "question", "answer")):
            raise ValueError(f"facts: line {number} of {str(file)!r} must be an object with non-empty "
                             "strings fact, question and answer")
        facts.append(Fact(fact=row["fact"].strip(), question=row["question"].strip(), answer=row["answer"].strip()))
    if not facts:
        raise ValueError(f"facts: {str(file)!r} holds no fact")
    return tuple(facts)


@dataclasses.dataclass(frozen=True, eq=False)
class ProbeSet:
    """Prompts and answer candidates of a position-controlled probe (module docstring).

    Attributes:
      prompts: [E, k, T] int32; prompts[e, p - 1] holds the fact in passage p.
      answers: [E, C, A] int32 candidate answer ids (candidate 0 right), padded with 0.
      answer_lengths: [E, C] int32 ids of each candidate (>= 1).
      fact_start: [E, k] int32 0-based index of the fact's first id in each prompt.
      fact_length: [E] int32 ids of each example's fact.
      mode: "text" or "tokens".
    """

    prompts: np.ndarray
    answers: np.ndarray
    answer_lengths: np.ndarray
    fact_start: np.ndarray
    fact_length: np.ndarray
    mode: str

    @property
    def examples(self) -> int:
        return self.prompts.shape[0]

    @property
    def passages(self) -> int:
        return self.prompts.shape[1]

    @property
    def length(self) -> int:
        return self.prompts.shape[2]

    @property
    def candidates(self) -> int:
        return self.answers.shape[1]

    @property
    def positions_needed(self) -> int:
        """Positions a scoring forward uses: T + A - 1 (the prompt and all but the last answer id)."""
        return self.length + self.answers.shape[2] - 1


def check_design(passages, length, candidates) -> tuple[int, int, int]:
    """passages >= 2, length >= 8, candidates >= 2 (ValueError naming the argument)."""
    return (check_int("passages", passages, 2), check_int("length", length, 8), check_int("candidates", candidates, 2))


def _assemble(pieces: list[list[int]], fact: list[int], passage: int, sep: list[int], head: list[int],
              tail: list[int]) -> tuple[list[int], int]:
    """head F_1 S ... F_p' ... S F_k tail with the fact in the middle of passage ``passage`` (0-based)."""
    out = list(head)
    start = -1
    for i, filler in enumerate(pieces):
        if i:
            out += sep
        if i == passage:
            half = len(filler) // 2
            out += filler[:half]
            start = len(out)
            out += fact + filler[half:]
        else:
            out += filler
    return out + tail, start


def _budgets(total: int, k: int) -> list[int]:
    base, extra = divmod(total, k)
    if base < 2:
        raise ValueError(f"length leaves {total} filler ids for {k} passages; need >= 2 per passage "
                         f"(raise length or lower passages)")
    return [base + (i < extra) for i in range(k)]


def _sentences(rng):
    while True:
        yield builtin_sentences(rng, 1)[0]


def _fill(stream, budget: int) -> list[int]:
    """The next pieces of ``stream`` (shared by every passage) until ``budget`` ids, the last one cut."""
    ids: list[int] = []
    while len(ids) < budget:
        ids += next(stream)
    return ids[:budget]


def _distractors(answers: list[str], index: int, count: int, rng) -> list[str]:
    others = sorted(set(answers) - {answers[index]})
    if len(others) < count:
        raise ValueError(f"candidates: {count + 1} answer candidates need {count} distinct other answers among "
                         f"the facts, found {len(others)}")
    return [others[i] for i in rng.choice(len(others), size=count, replace=False)]


def text_probes(tokenizer, facts, *, passages: int = 5, length: int = 1024, candidates: int = 5,
                corpus=None, seed: int = 0) -> ProbeSet:
    """One example per fact: k prompts of exactly ``length`` ids (module docstring) and the answer candidates.

    Args:
      tokenizer: a :class:`.tokenizer.TextTokenizer`.
      facts: the facts (:func:`builtin_facts`, :func:`read_facts`), one example each.
      passages: k >= 2 passages per document.
      length: T, the prompt length in ids (the question included).
      candidates: C >= 2 answers scored per example (1 right, C - 1 other facts' answers).
      corpus: None (built-in filler sentences) or paragraphs (:func:`read_corpus`), used in order (cycling):
        a passage takes the next paragraphs until its budget, the last one cut.
      seed: the filler's and the distractors' seed.
    """
    passages, length, candidates = check_design(passages, length, candidates)
    facts = tuple(facts)
    if not facts:
        raise ValueError("facts must hold at least one fact")
    rng = np.random.default_rng([check_int("seed", seed, 0), 2])
    encode = tokenizer.encode
    head = [] if tokenizer.bos_id is None else [int(tokenizer.bos_id)]
    sep = encode(SEPARATOR)
    answers_text = [f.answer for f in facts]
    corpus_ids = None if corpus is None else [ids for ids in (encode(" " + p) for p in corpus) if ids]
    if corpus_ids is not None and not corpus_ids:
        raise ValueError("corpus: no paragraph encodes to any token")
    stream = itertools.cycle(corpus_ids) if corpus_ids is not None else (
        encode(" " + s) for s in _sentences(rng))
    prompts, starts, answers, fact_lengths = [], [], [], []
    for e, fact in enumerate(facts):
        fact_ids, tail = encode(" " + fact.fact), encode(QUESTION.format(question=fact.question))
        fact_lengths.append(len(fact_ids))
        fixed = len(head) + (passages - 1) * len(sep) + len(fact_ids) + len(tail)
        if length - fixed < 2 * passages:
            raise ValueError(f"facts: fact {e + 1} ({fact.fact[:40]!r}...) is {len(fact_ids)} ids long and its "
                             f"question {len(tail)} ids: with {passages} passages of >= 2 ids they need length "
                             f">= {fixed + 2 * passages}, and length is {length}; shorten the fact or raise length")
        pieces = [_fill(stream, budget) for budget in _budgets(length - fixed, passages)]
        rows = [_assemble(pieces, fact_ids, p, sep, head, tail) for p in range(passages)]
        prompts.append([r[0] for r in rows])
        starts.append([r[1] for r in rows])
        choice = [fact.answer] + _distractors(answers_text, e, candidates - 1, rng)
        answers.append([encode(ANSWER.format(answer=a)) for a in choice])
    return _probe_set(prompts, starts, answers, fact_lengths, "text")


def token_probes(vocab_size: int, *, examples: int, passages: int = 5, length: int = 256, candidates: int = 5,
                 key_tokens: int = 2, value_tokens: int = 1, low: int = 0, seed: int = 0) -> ProbeSet:
    """The token-level probe: keys and values as ids, no tokenizer (module docstring).

    Args:
      vocab_size: V, the model's vocabulary (ids are drawn from [low, V)).
      examples: E >= 1.
      passages, length, candidates: as :func:`text_probes`.
      key_tokens, value_tokens: ids per key and per value (>= 1).
      low: the smallest id used (keep a model's special ids below it).
      seed: everything random (filler, keys, values, distractors).
    """
    passages, length, candidates = check_design(passages, length, candidates)
    vocab_size, examples = check_int("vocab_size", vocab_size, 2), check_int("examples", examples, 1)
    key_tokens, value_tokens = check_int("key_tokens", key_tokens, 1), check_int("value_tokens", value_tokens, 1)
    low = check_int("low", low, 0, vocab_size - 2)
    rng = np.random.default_rng([check_int("seed", seed, 0), 3])
    span = vocab_size - low
    if span ** value_tokens < candidates:
        raise ValueError(f"candidates: {candidates} distinct values need more than {span} ** {value_tokens} ids")
    sep = [low]  # the separator before the question key
    draw = lambda n: [int(v) for v in low + rng.integers(0, span, size=n)]  # noqa: E731
    prompts, starts, answers = [], [], []
    for _ in range(examples):
        key = draw(key_tokens)
        values: list[list[int]] = []
        while len(values) < candidates:
            value = draw(value_tokens)
            if value not in values:
                values.append(value)
        fact_ids, tail = key + values[0], sep + key
        budgets = _budgets(length - len(fact_ids) - len(tail), passages)
        pieces = [draw(b) for b in budgets]
        rows = [_assemble(pieces, fact_ids, p, [], [], tail) for p in range(passages)]
        prompts.append([r[0] for r in rows])
        starts.append([r[1] for r in rows])
        answers.append(values)
    return _probe_set(prompts, starts, answers, [key_tokens + value_tokens] * examples, "tokens")


def _probe_set(prompts, starts, answers, fact_lengths, mode: str) -> ProbeSet:
    width = max(len(a) for cands in answers for a in cands)
    padded = np.zeros((len(answers), len(answers[0]), width), np.int32)
    lengths = np.zeros(padded.shape[:2], np.int32)
    for e, cands in enumerate(answers):
        for c, ids in enumerate(cands):
            if not ids:
                raise ValueError(f"facts: the answer of example {e} encodes to no token")
            padded[e, c, :len(ids)] = ids
            lengths[e, c] = len(ids)
    return ProbeSet(prompts=np.asarray(prompts, np.int32), answers=padded, answer_lengths=lengths,
                    fact_start=np.asarray(starts, np.int32), fact_length=np.asarray(fact_lengths, np.int32),
                    mode=mode)


__all__ = ["ANSWER", "Fact", "ProbeSet", "QUESTION", "SEPARATOR", "builtin_facts", "builtin_sentences",
           "builtin_vocabulary", "check_design", "read_corpus", "read_facts", "text_probes", "token_probes"]
