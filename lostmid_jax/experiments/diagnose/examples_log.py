"""examples.jsonl: every scored prompt of a diagnosis as one JSON object per line, to read what was measured.

    rows = example_rows(probes_by_length, measured, tok)    # tok: the TextTokenizer, or None (mode "tokens")
    write_examples(run_dir, rows)                            # <run_dir>/examples.jsonl, written atomically
    read_examples(run_dir)                                   # the rows back (lostmid_jax.runs.read_records)

One line per (condition, length, example, position):

    condition       "position" (the position test), "closed-book" (the question alone) or "oracle"
                    (the fact or gold document alone, then the question)
    length          T of the position test (null for the baselines)
    example         e, 0-based
    gold_position   p, the passage holding the fact, 1-based (null for the baselines)
    prompt_tokens   ids in the prompt
    prompt          the prompt decoded with the model's tokenizer (mode "text"; special tokens kept)
    prompt_ids      the prompt's ids (mode "tokens" only: there is no tokenizer)
    candidates      the C answer candidates (strings; id lists in mode "tokens"); the first is the right one
    scores          log P(candidate) for each, natural log
    rank, correct, exact   as examples.csv
    greedy          greedy decoding's output after the prompt, up to and including its first token that
                    departs from the right answer (the whole answer when it writes it; probes.scoring)
    greedy_ids      its ids (mode "text"; in mode "tokens" greedy is the ids)

In mode "text" the line holds text, not ids, so a prompt can be read as the
model saw it (whole words: :mod:`lostmid_jax.probes.filler`).
"""

from __future__ import annotations

import json

EXAMPLES_FILE = "examples.jsonl"


def _rows_of(condition: str, length, probes, scores, tok) -> list[dict]:
    decode = getattr(tok, "decode", None) if tok is not None else None
    out = []
    for e in range(probes.examples):
        for p in range(probes.passages):
            prompt = probes.prompt(e, p)
            greedy = [int(i) for i in scores.greedy[e, p] if i >= 0] if scores.greedy is not None else []
            row = dict(condition=condition, length=length, example=e,
                       gold_position=p + 1 if condition == "position" else None, prompt_tokens=int(prompt.size))
            if probes.mode == "text" and decode is not None:
                row["prompt"] = decode(prompt)
                row["candidates"] = list(probes.candidate_text[e]) if probes.candidate_text else None
                row["greedy"] = decode(greedy)
                row["greedy_ids"] = greedy  # a byte-level token alone may decode to U+FFFD
            else:
                row["prompt_ids"] = [int(i) for i in prompt]
                row["candidates"] = [[int(i) for i in probes.answers[e, c, :probes.answer_lengths[e, c]]]
                                     for c in range(probes.candidates)]
                row["greedy"] = greedy
            row.update(scores=[float(v) for v in scores.logprob[e, p]], rank=int(scores.rank[e, p]),
                       correct=int(scores.correct[e, p]), exact=int(scores.exact[e, p]))
            out.append(row)
    return out


def example_rows(probes_by_length: dict, measured: dict, tok) -> list[dict]:
    """The lines of examples.jsonl (module docstring) for the position tests and the baselines."""
    rows = []
    for length, probes in probes_by_length.items():
        rows += _rows_of("position", length, probes, measured["tests"][length]["scores"], tok)
    first = probes_by_length[next(iter(probes_by_length))]
    for name, base in measured.get("baselines", {}).items():
        rows += _rows_of(name, None, first.baselines[name], base["scores"], tok)
    return rows


def write_examples(run_dir, rows: list[dict]):
    """<run_dir>/examples.jsonl (atomically); returns its path."""
    import pathlib

    from ...atomic import write_atomic

    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    return write_atomic(pathlib.Path(run_dir) / EXAMPLES_FILE, text)


def read_examples(run_dir) -> list[dict] | None:
    """The lines of a run's examples.jsonl (None when absent), read as any run file from elsewhere is."""
    from ...runs.tables import read_records

    return read_records(run_dir, EXAMPLES_FILE)


__all__ = ["EXAMPLES_FILE", "example_rows", "read_examples", "write_examples"]
