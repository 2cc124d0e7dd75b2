"""The paired design of position-controlled retrieval, as token ids: k passages, the fact in passage p, the question.

Shapes: E examples, k passages (positions p = 1..k), T prompt ids, C answer candidates (candidate 0 is the right
answer), A the longest candidate in ids.

    prompt(e, p) = head F_1 S F_2 S ... S F_p' ... S F_k tail     (assemble)
    F_p' = F_p cut at an offset, the fact's ids between the two parts

Every prompt of an example differs only in which passage holds the fact, so a difference between passages is
the position's alone. :class:`ProbeSet` holds the prompts and answer candidates; :func:`baselines` adds the
closed-book (head tail) and oracle (head fact tail) one-passage sets. Built from text by
:mod:`lostmid_jax.probes.documents` and from random ids by :mod:`.token_probes` (the training task of
lostmid_jax.train and the --mode tokens probe). numpy only.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..validation import check_int


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
      prompt_lengths: [E, k] int32 ids of each prompt when they differ (the rest of the row is padding, 0),
        or None: every prompt is T ids long.
      candidate_text: text mode: [E][C] the candidates' strings; None in mode "tokens".
      baselines: {"closed-book": the question alone, "oracle": the fact (gold document) alone and the
        question}: ProbeSets of one passage whose prompts differ in length (prompt_lengths).
    """

    prompts: np.ndarray
    answers: np.ndarray
    answer_lengths: np.ndarray
    fact_start: np.ndarray
    fact_length: np.ndarray
    mode: str
    prompt_lengths: np.ndarray | None = None
    candidate_text: tuple | None = None
    baselines: dict = dataclasses.field(default_factory=dict)

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

    def prompt(self, e: int, p: int) -> np.ndarray:
        """The ids of prompt (e, p) (0-based), without padding."""
        n = self.length if self.prompt_lengths is None else int(self.prompt_lengths[e, p])
        return self.prompts[e, p, :n]


def check_design(passages, length, candidates) -> tuple[int, int, int]:
    """passages >= 2, length >= 8, candidates >= 2 (ValueError naming the argument)."""
    return (check_int("passages", passages, 2), check_int("length", length, 8), check_int("candidates", candidates, 2))


def assemble(pieces: list[list[int]], cuts: list[int], fact: list[int], passage: int, sep: list[int],
              head: list[int], tail: list[int]) -> tuple[list[int], int]:
    """head F_1 S ... F_p' ... S F_k tail with the fact at offset cuts[p] of passage ``passage`` (0-based)."""
    out = list(head)
    start = -1
    for i, filler in enumerate(pieces):
        if i:
            out += sep
        if i == passage:
            out += filler[:cuts[i]]
            start = len(out)
            out += fact + filler[cuts[i]:]
        else:
            out += filler
    return out + tail, start


def budgets(total: int, k: int) -> list[int]:
    """``total`` filler ids split over k passages as evenly as possible (the first total mod k one id longer),
    each >= 2 (else a ValueError naming length)."""
    base, extra = divmod(total, k)
    if base < 2:
        raise ValueError(f"length leaves {total} filler ids for {k} passages; need >= 2 per passage "
                         f"(raise length or lower passages)")
    return [base + (i < extra) for i in range(k)]


def baselines(head, fact_ids, tails, answers, mode: str, candidate_text=None) -> dict:
    """{"closed-book": [BOS] Q, "oracle": [BOS] F Q} per example, as one-passage ProbeSets."""
    closed = [[head + t] for t in tails]
    oracle = [[head + f + t] for f, t in zip(fact_ids, tails)]
    width = max(len(row[0]) for row in oracle)  # one width for both: one compiled scoring forward serves them
    return {"closed-book": probe_set(closed, [[-1]] * len(tails), answers, [0] * len(tails), mode,
                                     candidate_text=candidate_text, width=width),
            "oracle": probe_set(oracle, [[len(head)]] * len(tails), answers, [len(f) for f in fact_ids], mode,
                                candidate_text=candidate_text)}


def probe_set(prompts, starts, answers, fact_lengths, mode: str, *, candidate_text=None, baselines=None,
              width: int = 0) -> ProbeSet:
    """The arrays of a ProbeSet from lists; prompts shorter than the longest (or than ``width``) are padded with 0
    (prompt_lengths)."""
    answer_width = max(len(a) for cands in answers for a in cands)
    padded = np.zeros((len(answers), len(answers[0]), answer_width), np.int32)
    lengths = np.zeros(padded.shape[:2], np.int32)
    for e, cands in enumerate(answers):
        for c, ids in enumerate(cands):
            if not ids:
                raise ValueError(f"facts: the answer of example {e} encodes to no token")
            padded[e, c, :len(ids)] = ids
            lengths[e, c] = len(ids)
    sizes = np.asarray([[len(row) for row in rows] for rows in prompts], np.int32)
    table = np.zeros((*sizes.shape, max(int(sizes.max()), width)), np.int32)
    for (e, p), n in np.ndenumerate(sizes):
        table[e, p, :n] = prompts[e][p]
    return ProbeSet(prompts=table, answers=padded, answer_lengths=lengths,
                    fact_start=np.asarray(starts, np.int32), fact_length=np.asarray(fact_lengths, np.int32),
                    mode=mode, prompt_lengths=None if np.all(sizes == table.shape[2]) else sizes,
                    candidate_text=candidate_text, baselines=baselines or {})


__all__ = ["ProbeSet", "assemble", "baselines", "budgets", "check_design", "probe_set"]
