"""The user's ``--facts`` file, in one of three JSON-lines formats recognized by the fields of its first line.

    examples = read_facts("nq_20docs.jsonl")   # tuple of Fact or of DocumentExample, one per line

Formats (one JSON object per line):

- facts: {"fact", "question", "answer"}: a sentence placed inside a filler
  passage (:class:`Fact`);
- multi-document QA, the format of Liu et al.'s "Lost in the Middle" data:
  {"question", "answers": [str, ...], "ctxs": [{"title", "text", "isgold"
  or "hasanswer"}, ...]}: the gold document is the ctx with ``isgold`` true
  (else the first with ``hasanswer`` true), the distractors the other ctxs
  without ``hasanswer`` true, in file order (:class:`DocumentExample`);
- key-value retrieval: {"ordered_kv_records": [[key, value], ...], "key",
  "value"}: the gold record is (key, value), the distractors the other
  records in order; the question asks for the key's value.

A document is rendered "Document (Title: <title>) <text>" (QA) or
'"<key>": "<value>"' (key-value); the paper numbers its documents, here they
are not numbered, so an example's prompts differ only in where the gold
document sits (:mod:`.documents`). The first answer is the one scored (the
right candidate); the others are read (``DocumentExample.answers``) and not
scored.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib

from ..untrusted import parse_json, read_text_file

FORMATS = {"facts": ("fact", "question", "answer"), "qa": ("question", "answers", "ctxs"),
           "kv": ("ordered_kv_records", "key", "value")}
"""Format name -> the fields a line of it must hold."""
_FORMAT_NAMES = {"facts": "facts", "qa": "multi-document QA", "kv": "key-value retrieval"}


@dataclasses.dataclass(frozen=True)
class Fact:
    """One retrievable fact: the sentence placed in a passage, the question and its answer."""

    fact: str
    question: str
    answer: str


@dataclasses.dataclass(frozen=True)
class DocumentExample:
    """One example of the paper's formats: the gold document, the distractor documents, the question, the answers.

    ``fact`` (the gold document) and ``answer`` (the first answer) read as a :class:`Fact`'s fields."""

    gold: str
    distractors: tuple[str, ...]
    question: str
    answers: tuple[str, ...]
    kind: str  # "qa" or "kv"

    @property
    def fact(self) -> str:
        return self.gold

    @property
    def answer(self) -> str:
        return self.answers[0]


def detect_format(row, where: str) -> str:
    """The format whose fields ``row`` holds; ValueError naming ``where`` and the nearest format's missing field."""
    if not isinstance(row, dict):
        raise ValueError(f"facts: {where} must be a JSON object, got {type(row).__name__}")
    for name, fields in FORMATS.items():
        if all(f in row for f in fields):
            return name
    nearest = max(FORMATS, key=lambda n: sum(f in row for f in FORMATS[n]))
    missing = next(f for f in FORMATS[nearest] if f not in row)
    raise ValueError(f"facts: {where} matches no known format: missing field {missing!r} for "
                     f"{_FORMAT_NAMES[nearest]} ({', '.join(FORMATS[nearest])}); the formats: "
                     + "; ".join(f"{_FORMAT_NAMES[n]}: {', '.join(f)}" for n, f in FORMATS.items()))


def _text(row: dict, field: str, where: str) -> str:
    value = row.get(field)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"facts: {where}: field {field!r} must be a non-empty string")
    return " ".join(value.split())


def _fact(row: dict, where: str) -> Fact:
    return Fact(fact=_text(row, "fact", where), question=_text(row, "question", where),
                answer=_text(row, "answer", where))


def _qa(row: dict, where: str) -> DocumentExample:
    answers = row["answers"]
    if not isinstance(answers, list) or not answers:
        raise ValueError(f"facts: {where}: field 'answers' must be a non-empty list of strings")
    answers = tuple(_text({"answers": a}, "answers", where) for a in answers)
    ctxs = row["ctxs"]
    if not isinstance(ctxs, list) or not all(isinstance(c, dict) for c in ctxs):
        raise ValueError(f"facts: {where}: field 'ctxs' must be a list of objects {{title, text, isgold}}")
    gold = [c for c in ctxs if c.get("isgold") is True] or [c for c in ctxs if c.get("hasanswer") is True]
    if not gold:
        raise ValueError(f"facts: {where}: no ctx is marked gold (isgold, or hasanswer, true)")
    render = lambda c: f"Document (Title: {_text(c, 'title', where)}) {_text(c, 'text', where)}"  # noqa: E731
    distractors = tuple(render(c) for c in ctxs if c is not gold[0] and c.get("hasanswer") is not True
                        and c.get("isgold") is not True)
    return DocumentExample(gold=render(gold[0]), distractors=distractors, question=_text(row, "question", where),
                           answers=answers, kind="qa")


def _kv(row: dict, where: str) -> DocumentExample:
    key, value = _text(row, "key", where), _text(row, "value", where)
    records = row["ordered_kv_records"]
    if not isinstance(records, list) or not all(isinstance(r, list) and len(r) == 2 for r in records):
        raise ValueError(f"facts: {where}: field 'ordered_kv_records' must be a list of [key, value] pairs")
    pairs = [(_text({"k": k}, "k", where), _text({"v": v}, "v", where)) for k, v in records]
    render = lambda k, v: json.dumps({k: v})[1:-1]  # noqa: E731  '"key": "value"'
    return DocumentExample(gold=render(key, value), distractors=tuple(render(k, v) for k, v in pairs if k != key),
                           question=f'What is the value of the key "{key}"?', answers=(value,), kind="kv")


_READERS = {"facts": _fact, "qa": _qa, "kv": _kv}


def read_facts(file) -> tuple:
    """Every line of a facts file as a :class:`Fact` or :class:`DocumentExample` (module docstring).

    Raises:
      ValueError: naming ``facts``, the file and the line for a missing file, bad JSON, a line that matches
        no format (the missing field named), a format that changes between lines or a bad field.
    """
    path = pathlib.Path(file)
    if not path.is_file() or path.is_symlink():
        raise ValueError(f"facts must be a JSON-lines file, got {str(file)!r}")
    out, kind = [], None
    for number, line in enumerate(read_text_file(path, "facts").splitlines(), 1):
        if not line.strip():
            continue
        where = f"line {number} of {str(file)!r}"
        row = parse_json(line, f"facts: {where}")
        this = detect_format(row, where)
        if kind is not None and this != kind:
            raise ValueError(f"facts: {where} is {_FORMAT_NAMES[this]}, the lines above {_FORMAT_NAMES[kind]}")
        kind = this
        out.append(_READERS[kind](row, where))
    if not out:
        raise ValueError(f"facts: {str(file)!r} holds no fact")
    return tuple(out)


__all__ = ["DocumentExample", "FORMATS", "Fact", "detect_format", "read_facts"]
