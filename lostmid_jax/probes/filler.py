"""Filler text cut between whole words, never inside one, to an exact number of ids.

    words = WholeWords(tok.encode, sentence_stream)   # sentences: an iterator of str
    ids, ends = words.take(40)                         # exactly 40 ids; ends: offsets where a whole sentence ends
    split_sentences("A b. C d? E")                     # ["A b.", "C d?", "E"]

Each sentence is encoded word by word (" " + word, cached), so every cut
falls between words of the model's own subword tokenizer (a subword
tokenizer that splits "meadow" into "m" "eadow" is never cut between the
two). :meth:`WholeWords.take` fills a budget with whole sentences while they
fit, then with the first whole words of the next sentence, and tops up the
last ids (fewer than one word's) with the tokenizer's single id for "\\n"
(else " "); a tokenizer with neither (a word-level one, whose words are one
id each) gets the next word's first ids instead.
"""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def split_sentences(text: str) -> list[str]:
    """``text`` cut after each ".", "!" or "?" followed by white space (empty pieces dropped)."""
    return [s for s in _SENTENCE_END.split(text.strip()) if s]


def single_id(encode, texts=("\n", " ")) -> int | None:
    """The id of the first of ``texts`` that encodes to exactly one id, or None."""
    for text in texts:
        ids = encode(text)
        if len(ids) == 1:
            return int(ids[0])
    return None


class WholeWords:
    """A stream of sentences as whole words of ``encode`` (module docstring)."""

    _EMPTY_LIMIT = 10_000  # sentences in a row that encode to nothing: the stream holds no text

    def __init__(self, encode, sentences):
        self._encode, self._sentences, self._cache = encode, sentences, {}
        self.pad = single_id(encode)

    def _words(self, sentence: str) -> list[list[int]]:
        out = []
        for word in sentence.split():
            ids = self._cache.get(word)
            if ids is None:
                ids = self._cache[word] = list(self._encode(" " + word))
            if ids:
                out.append(ids)
        return out

    def _next_words(self) -> list[list[int]]:
        for _ in range(self._EMPTY_LIMIT):
            words = self._words(next(self._sentences))
            if words:
                return words
        raise ValueError("corpus: no sentence of the filler encodes to any token")

    def take(self, budget: int) -> tuple[list[int], list[int]]:
        """Exactly ``budget`` ids cut between words, and the offsets (<= budget) where a whole sentence ends."""
        ids: list[int] = []
        ends: list[int] = []
        while len(ids) < budget:
            words = self._next_words()
            if len(ids) + sum(map(len, words)) <= budget:
                ids += [i for w in words for i in w]
                ends.append(len(ids))
                continue
            word = words[0]
            for word in words:
                if len(ids) + len(word) > budget:
                    break
                ids += word
            rest = budget - len(ids)
            ids += [self.pad] * rest if self.pad is not None else word[:rest]
        return ids, ends


def sentence_cut(length: int, ends: list[int]) -> int:
    """The sentence boundary (0, the passage's start, or a sentence's end) nearest the middle ``length / 2``."""
    return min([0, *ends], key=lambda b: (abs(2 * b - length), b))


__all__ = ["WholeWords", "sentence_cut", "single_id", "split_sentences"]
