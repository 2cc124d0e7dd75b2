"""The token-level probe: keys and values as ids, no tokenizer (any model; a training task of lostmid_jax.train).

Shapes: E examples, k passages, T prompt ids, C answer candidates.

    probes = token_probes(vocab_size, examples=40, length=256)   # a design.ProbeSet: prompts [E, k, T]

Passages of random filler ids, the fact a key of ``key_tokens`` ids followed by its value of ``value_tokens``
ids in the middle of passage p, the question a separator id then the key, the answer the value; distractors
are other values. Ids are drawn from [``low``, vocab_size), so a model's special ids can be kept out.
"""

from __future__ import annotations

import numpy as np

from ..validation import check_int
from .design import ProbeSet, assemble, baselines, budgets, check_design, probe_set


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
    prompts, starts, answers, facts, tails = [], [], [], [], []
    for _ in range(examples):
        key = draw(key_tokens)
        values: list[list[int]] = []
        while len(values) < candidates:
            value = draw(value_tokens)
            if value not in values:
                values.append(value)
        fact_ids, tail = key + values[0], sep + key
        sizes = budgets(length - len(fact_ids) - len(tail), passages)
        pieces = [draw(b) for b in sizes]
        rows = [assemble(pieces, [b // 2 for b in sizes], fact_ids, p, [], [], tail) for p in range(passages)]
        prompts.append([r[0] for r in rows])
        starts.append([r[1] for r in rows])
        answers.append(values)
        facts.append(fact_ids)
        tails.append(tail)
    return probe_set(prompts, starts, answers, [key_tokens + value_tokens] * examples, "tokens",
                     baselines=baselines([], facts, tails, answers, "tokens"))


__all__ = ["token_probes"]
