"""Strings the tokenizer cannot write: refused before any work, or counted where the user allows them.

    texts = probe_texts(facts, corpus=None, marker="\\u2060")  # [(argument, kind, text)]: what a text probe encodes
    count = check_known(tok, texts, allow=False)               # ValueError: one line naming the string and the tokenizer
    check_candidates(tok, [f.answer for f in facts])           # distinct answers with the same ids: ValueError
    count.line(probes)                                          # the verdict's line when unknown strings were allowed

A string is **unknown** when its ids hold the tokenizer's unknown id
(:attr:`.tokenizer.TextTokenizer.unk_id`: "[UNK]" of a WordLevel / WordPiece
/ BPE model, "<unk>" of a Unigram one; a byte-level BPE has none and writes
every string). A probe built from unknown strings measures [UNK] streams: the
fact, the question or the answer is the same id whatever it says, so the
accuracy ranks indistinguishable candidates. Each string is encoded exactly as
:func:`.documents.text_probes` or :func:`.documents.document_probes` encodes it
(a leading space before a fact, a document, a passage or an answer; the
question inside its template); of the paper's formats, only the distractor
documents a prompt holds (the first k - 1) are checked.

**Candidates** that tokenize to the same ids (two answers both [UNK], or
"Gate" and "gate" under a lower-casing normalizer) cannot be ranked; they are
refused whatever ``allow`` says.
"""

from __future__ import annotations

import dataclasses

from .documents import ANSWER, QUESTION, SEPARATOR, builtin_vocabulary

ALLOW_FLAG = "--allow-unknown-tokens"
"""The flag (config field ``allow_unknown_tokens``) that measures unknown strings instead of refusing them."""
_SHOWN = 60  # characters of a string shown in a message


def probe_texts(facts, *, corpus=None, marker: str | None = None, passages: int = 1) -> list[tuple[str, str, str]]:
    """[(argument, kind, text)] of every string a text probe encodes (module docstring): each answer, then
    each fact and question, the distractor documents a prompt of ``passages`` passages holds (the paper's
    formats: the first k - 1 of each example), the separator (argument "facts"), the corpus' paragraphs
    (argument "corpus") or the built-in filler's words, and the marker (argument "marker"; None or a token id:
    left out)."""
    texts = [("facts", "answer", ANSWER.format(answer=f.answer)) for f in facts]
    for f in facts:
        texts += [("facts", "fact", " " + f.fact), ("facts", "question", QUESTION.format(question=f.question))]
        texts += [("facts", "distractor", " " + d) for d in getattr(f, "distractors", ())[:passages - 1]]
    texts.append(("facts", "separator", SEPARATOR))
    if corpus is not None:
        texts += [("corpus", "passage", " " + p) for p in corpus]
    else:
        texts += [("facts", "built-in word", " " + w) for w in builtin_vocabulary()]
    if marker is not None and not marker.isdigit():
        texts.append(("marker", "marker", marker))
    return texts


def _show(text: str) -> str:
    text = text.strip() or text
    return repr(text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "...")


def _unknown_word(tok, text: str) -> str | None:
    """The first whitespace-separated word of a long ``text`` that maps to the unknown id."""
    words = text.split()
    if len(words) < 2:
        return None
    return next((w for w in words if tok.unk_id in tok.encode(" " + w)), None)


def _unk(tok) -> str:
    return f"the unknown token {tok.unk_token or '?'} (id {tok.unk_id}) of the tokenizer {tok.source}"


@dataclasses.dataclass(frozen=True)
class UnknownCount:
    """Unknown strings per kind: {kind: (unknown, total)}, and the tokenizer's unknown id."""

    counts: dict
    unk_id: int | None
    unk_token: str | None

    @property
    def unknown(self) -> int:
        """Strings that map to the unknown id, over every kind."""
        return sum(n for n, _ in self.counts.values())

    def line(self, probe_sets=()) -> str | None:
        """The verdict's line (None when nothing is unknown): the strings per kind and the share of the scored ids
        (prompts, markers included; right answers) that are the unknown id, over ``probe_sets`` (a string cut
        off by the prompt's budget counts among the strings but not among the ids)."""
        if not self.unknown:
            return None
        import numpy as np

        kinds = ", ".join(f"{n} of {total} {kind}s" for kind, (n, total) in self.counts.items() if n)
        prompts = [np.asarray(p.prompts) for p in probe_sets]
        right = [np.asarray(p.answers[:, 0])[np.arange(p.answers.shape[2]) < np.asarray(p.answer_lengths[:, :1])]
                 for p in probe_sets]
        share = ""
        if prompts:
            in_prompts = np.mean(np.concatenate([p.ravel() for p in prompts]) == self.unk_id)
            in_right = np.mean(np.concatenate(right) == self.unk_id)
            share = f"; {in_prompts:.1%} of the prompt ids and {in_right:.1%} of the right answers' ids are it"
        return (f"Unknown tokens measured ({ALLOW_FLAG}): {kinds} map to the tokenizer's unknown token "
                f"{self.unk_token or '?'} (id {self.unk_id}){share}; the numbers describe [UNK] streams, not the text.")


def check_known(tok, texts, *, allow: bool = False, marker: str | None = None) -> UnknownCount:
    """Refuse (ValueError, one line) the first string of ``texts`` (:func:`probe_texts`) that maps to ``tok``'s
    unknown id, naming its argument, the string, the tokenizer and how many more are unknown; with ``allow``
    count them instead. A token-id ``marker`` equal to the unknown id is refused the same way."""
    counts: dict = {}
    first = None
    if tok.unk_id is not None and marker is not None and marker.isdigit():
        counts["marker"] = (int(int(marker) == tok.unk_id), 1)
        if counts["marker"][0]:
            first = ("marker", "marker id", marker)
    for arg, kind, text in texts:
        n, total = counts.get(kind, (0, 0))
        bad = tok.unk_id is not None and tok.unk_id in tok.encode(text)
        counts[kind] = (n + bad, total + 1)
        if bad and first is None:
            first = (arg, kind, text)
    count = UnknownCount(counts, tok.unk_id, tok.unk_token)
    if first is not None and not allow:
        arg, kind, text = first
        word = _unknown_word(tok, text)
        more = count.unknown - 1
        raise ValueError(f"{arg}: the {kind} {_show(text)}" + (f" (its word {word!r})" if word else "")
                         + f" maps to {_unk(tok)}" + (f"; so do {more} more of the strings the probe encodes" if more
                                                      else "")
                         + f": use a tokenizer that writes it or change the input, or pass {ALLOW_FLAG} to measure "
                           "anyway (counted in the verdict)")
    return count


def check_candidates(tok, answers, *, name: str = "facts") -> None:
    """Refuse (ValueError naming ``name``) two distinct answers whose ids (as :func:`.documents.text_probes`
    encodes them) are identical: ranking among them measures nothing, so no flag lifts this."""
    seen: dict = {}
    for answer in dict.fromkeys(answers):
        ids = tuple(tok.encode(ANSWER.format(answer=answer)))
        if ids in seen:
            unk = " (the unknown token)" if tok.unk_id is not None and tok.unk_id in ids else ""
            raise ValueError(f"{name}: the answers {_show(seen[ids])} and {_show(answer)} tokenize to the same ids "
                             f"{list(ids)[:8]}{unk} with the tokenizer {tok.source}; answer candidates must differ "
                             f"to be ranked (not lifted by {ALLOW_FLAG})")
        seen[ids] = answer


__all__ = ["ALLOW_FLAG", "UnknownCount", "check_candidates", "check_known", "probe_texts"]
