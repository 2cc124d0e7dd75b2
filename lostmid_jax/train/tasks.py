"""Synthetic tasks, generated on the fly: batch t is a pure function of (seed, t).

Shapes: B batch, L positions, k key-value pairs, V vocabulary, N document length.
Tokens: 0 = BOS (starts every document), 1 = QUERY, K keys 2 .. K+1, then
the values: "keyed" K NV tokens, key j owning K+2+j NV .. K+2+(j+1) NV-1;
"shared" NV tokens used by every key (``TrainConfig.kv_sizes`` gives K, NV).

- Language modelling on a corpus of documents (the paper's chunked
  experiment): a document of N = ``doc_length`` tokens starts with BOS, its first content token is uniform and
  the rest follow a fixed sparse bigram chain (4 successors per token, fixed by
  ``eval_seed``), so the loss is learnable and boundaries are marked by BOS.
- Key-value retrieval (Liu et al. 2023, "Lost in the Middle", Sec. 3):
  [BOS, k_1, v_1, ..., k_k, v_k, QUERY, k_i] -> target v_i, with distinct keys
  and the needle index i (its relative position x = (i + 1/2) / k, binned into
  ``needle_bins`` needle bins) drawn per example.
  "keyed" values are owned by their key, so v_i is the one context value
  owned by k_i: content lookup plus copy, learned within the default 100 steps;
  "shared" (Liu et al.'s format) needs a previous-token + match circuit.
- Templated passage retrieval ("passages"): the token-level probe of
  :func:`lostmid_jax.retrieval.token_probes.token_probes` as a training task: k = ``kv_pairs``
  passages of random filler ids in [2, V), a fact (``passage_key_tokens`` key
  ids, then one value id) in the middle of passage i + 1 (i the needle index,
  one needle bin per passage when ``needle_bins`` = k), then the separator and
  the key; the target is the value. T = ``passage_length`` ids. The value is
  random per example, so the model must find the key and copy what follows it
  (an induction circuit); a model trained on it is probed with
  ``lostmid diagnose / remedies --mode tokens`` on the same format. Each
  step adds an induction warm-up: the LM loss on the
  second copy of ``lm_batch`` random prefixes of varying length (:func:`repeat_tokens`),
  a dense signal that forms the copy circuit far sooner than the one answer
  per passage context.
"""

from __future__ import annotations

import numpy as np

from .._moved import old_names
from ..theory.middle import MIDDLE_X
from .config import N_SPECIAL, TrainConfig

BOS, QUERY = 0, 1
_LM_STREAM, _KV_STREAM, _EVAL_STREAM, _PROFILE_STREAM = 1, 2, 3, 4


def key_value_ranges(cfg: TrainConfig) -> tuple[range, range]:
    """Key tokens [K] and value tokens [K NV] ("keyed") or [NV] ("shared")."""
    keys, values = cfg.kv_sizes
    n_values = keys * values if cfg.kv_format == "keyed" else values
    return range(N_SPECIAL, N_SPECIAL + keys), range(N_SPECIAL + keys, N_SPECIAL + keys + n_values)


def chance_accuracy(cfg: TrainConfig) -> float:
    """Chance accuracy: the better of two guesses that do not retrieve.

    "keyed": the k context values are distinct, so 1/k; a guess among the
    queried key's own NV values (ignoring the context) gets 1/NV; the larger.
    "shared": the answer's value occurs 1 + Binomial(k-1, 1/NV) times among
    the k, so (1 + (k - 1)/NV) / k. "passages": 1 / min(V - 2, T).
    """
    k, (_, nv) = cfg.kv_pairs, cfg.kv_sizes
    if cfg.task == "passages":  # a uniform guess among the value ids, or among the context's ids
        return 1.0 / min(cfg.vocab - N_SPECIAL, cfg.passage_length)
    if cfg.kv_format == "keyed":
        return max(1.0 / k, 1.0 / nv)
    return (1.0 + (k - 1) / nv) / k


def middle_weights(x: np.ndarray, strength: float) -> np.ndarray:
    """w(x) = 1 + s (1 - 2 |x - 1/2|) for relative positions x in [0, 1]: peaks at the middle
    x = :data:`~lostmid_jax.theory.middle.MIDDLE_X` = 1/2."""
    return 1.0 + strength * (1.0 - 2.0 * np.abs(np.asarray(x, np.float64) - MIDDLE_X))


def needle_bin_edges(pairs: int, bins: int) -> np.ndarray:
    """[bins + 1] pair-index edges: bin b holds indices edges[b] .. edges[b+1] - 1."""
    return (np.arange(bins + 1) * pairs) // bins


NEEDLE_MIDDLE_BAND = (MIDDLE_X - 0.25, MIDDLE_X + 0.25)
"""(lo, hi) = (1/4, 3/4): the needle positions of the curriculum's middle needles.

The central half of the pairs around x = 1/2 (theory.middle.MIDDLE_X). A band of
its own: narrower than the theory's middle band (0.1, 0.9), so the curriculum
trains only on needles well inside the valley, yet wide enough that a curriculum
of k pairs still draws from about k/2 needle positions. Runs trained with the
"curriculum" intervention (and their stored outputs) depend on it."""


def needle_middle_pairs(pairs: int) -> np.ndarray:
    """Pair indices whose relative position (i + 1/2) / k lies in NEEDLE_MIDDLE_BAND = [1/4, 3/4]
    (at least one: i = k // 2)."""
    x = (np.arange(pairs) + 0.5) / pairs
    lo, hi = NEEDLE_MIDDLE_BAND
    idx = np.flatnonzero((x >= lo) & (x <= hi))
    return idx if idx.size else np.array([pairs // 2])


def _bigram(cfg: TrainConfig) -> tuple[np.ndarray, np.ndarray]:
    """Successor table [V, 4] and probabilities [4] of the corpus chain."""
    rng = np.random.default_rng([cfg.eval_seed, 0])
    succ = rng.integers(N_SPECIAL, cfg.vocab, size=(cfg.vocab, 4))
    return succ, np.array([0.55, 0.25, 0.12, 0.08])


def lm_tokens(cfg: TrainConfig, rng: np.random.Generator, batch: int) -> np.ndarray:
    """[B, L] int32 corpus of documents: BOS at positions 0, N, 2N, ... (N = doc_length)."""
    succ, prob = _bigram(cfg)
    out = np.empty((batch, cfg.lm_length), np.int32)
    choice = rng.choice(4, size=(batch, cfg.lm_length), p=prob)
    fresh = rng.integers(N_SPECIAL, cfg.vocab, size=(batch, cfg.lm_length))
    for j in range(cfg.lm_length):
        r = j % cfg.doc_length
        if r == 0:
            out[:, j] = BOS
        elif r == 1:
            out[:, j] = fresh[:, j]
        else:
            out[:, j] = succ[out[:, j - 1], choice[:, j]]
    return out


def needle_probs(cfg: TrainConfig, step: int) -> np.ndarray:
    """[k] sampling probabilities of the needle index at ``step`` for the intervention."""
    k = cfg.kv_pairs
    x = (np.arange(k) + 0.5) / k
    if cfg.intervention == "oversample_middle":
        p = middle_weights(x, cfg.middle_strength)
    elif cfg.intervention == "curriculum" and step < cfg.curriculum_steps:
        p = np.zeros(k)
        p[needle_middle_pairs(k)] = 1.0
    else:
        p = np.ones(k)
    return p / p.sum()


def passage_examples(cfg: TrainConfig, rng: np.random.Generator, needle: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Templated passage contexts [B, T] int32 and their values [B] int32 for needle indices [B] (task
    "passages"): row b is retrieval.token_probes' prompt with the fact in passage needle[b] + 1."""
    from ..retrieval.token_probes import token_probes

    probes = token_probes(cfg.vocab, examples=needle.shape[0], passages=cfg.kv_pairs, length=cfg.passage_length,
                          candidates=2, key_tokens=cfg.passage_key_tokens, value_tokens=1, low=N_SPECIAL,
                          seed=int(rng.integers(2 ** 62)))
    rows = np.arange(needle.shape[0])
    return probes.prompts[rows, needle], probes.answers[rows, 0, 0].astype(np.int32)


def repeat_tokens(cfg: TrainConfig, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The induction warm-up of task "passages": [B_lm, T] rows that start with n random ids in [2, V) and
    their copy, n drawn per row from T/8 .. T/2 (the copy distance varies, so only matching content, not a
    fixed offset, predicts it), random ids after; and [B_lm, T - 1] next-token weights, 1 where the next id
    is a predictable repeat (ids n + 1 .. 2n - 1), 0 elsewhere (mean 1 over the batch)."""
    t = cfg.passage_length
    tokens = rng.integers(N_SPECIAL, cfg.vocab, size=(cfg.lm_batch, t)).astype(np.int32)
    weights = np.zeros((cfg.lm_batch, t - 1))
    for row, n in enumerate(rng.integers(max(2, t // 8), t // 2 + 1, size=cfg.lm_batch)):
        tokens[row, n:2 * n] = tokens[row, :n]
        weights[row, n:2 * n - 1] = 1.0  # position j predicts id j + 1, a repeat for j + 1 in n + 1 .. 2n - 1
    return tokens, (weights / weights.mean()).astype(np.float32)


def kv_examples(cfg: TrainConfig, rng: np.random.Generator, needle: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Retrieval contexts [B, 2k + 3] int32 and targets [B] int32 for needle indices [B] ([B, T] for task
    "passages": :func:`passage_examples`)."""
    if cfg.task == "passages":
        return passage_examples(cfg, rng, needle)
    keys_r, vals_r = key_value_ranges(cfg)
    batch, k, (_, nv) = needle.shape[0], cfg.kv_pairs, cfg.kv_sizes
    key_idx = np.argsort(rng.random((batch, len(keys_r))), axis=1)[:, :k]
    keys = key_idx + keys_r.start
    vals = vals_r.start + rng.integers(0, nv, size=(batch, k)) + (key_idx * nv if cfg.kv_format == "keyed" else 0)
    tokens = np.empty((batch, cfg.kv_length), np.int32)
    tokens[:, 0] = BOS
    tokens[:, 1:2 * k + 1:2] = keys
    tokens[:, 2:2 * k + 2:2] = vals
    tokens[:, -2] = QUERY
    rows = np.arange(batch)
    tokens[:, -1] = keys[rows, needle]
    return tokens, vals[rows, needle].astype(np.int32)


def train_batch(cfg: TrainConfig, step: int) -> dict[str, np.ndarray]:
    """The batch of step t: a pure function of (cfg, t).

    Returns (present for the configured task):
      lm_tokens [B_lm, L] int32, lm_weights [B_lm, L - 1] float32 (per
      next-token loss weights), kv_tokens [B_kv, 2k + 3] int32, kv_target
      [B_kv] int32, kv_weights [B_kv] float32.
    """
    out = {}
    middle = cfg.intervention == "middle_weighted_loss"
    if cfg.task == "passages":
        out["lm_tokens"], out["lm_weights"] = repeat_tokens(cfg, np.random.default_rng([cfg.seed, step, _LM_STREAM]))
    if cfg.task in ("lm", "mixed"):
        rng = np.random.default_rng([cfg.seed, step, _LM_STREAM])
        out["lm_tokens"] = lm_tokens(cfg, rng, cfg.lm_batch)
        x = (np.arange(1, cfg.lm_length) % cfg.doc_length) / max(cfg.doc_length - 1, 1)  # place in its document
        w = middle_weights(x, cfg.middle_strength) if middle else np.ones(cfg.lm_length - 1)
        out["lm_weights"] = np.broadcast_to(w / w.mean(), (cfg.lm_batch, cfg.lm_length - 1)).astype(np.float32)
    if cfg.task in ("retrieval", "mixed", "passages"):
        rng = np.random.default_rng([cfg.seed, step, _KV_STREAM])
        needle = rng.choice(cfg.kv_pairs, size=cfg.kv_batch, p=needle_probs(cfg, step))
        out["kv_tokens"], out["kv_target"] = kv_examples(cfg, rng, needle)
        x = (needle + 0.5) / cfg.kv_pairs
        w = middle_weights(x, cfg.middle_strength) if middle else np.ones(cfg.kv_batch)
        out["kv_weights"] = (w / w.mean()).astype(np.float32)
    return out


def eval_set(cfg: TrainConfig) -> dict[str, np.ndarray]:
    """Retrieval evaluation set with ``eval_per_bin`` examples in every needle bin.

    Returns kv_tokens [bins * n, 2k + 3], kv_target [bins * n], bin [bins * n]
    (fixed by ``eval_seed``, the same for every seed and intervention).
    """
    rng = np.random.default_rng([cfg.eval_seed, _EVAL_STREAM])
    edges = needle_bin_edges(cfg.kv_pairs, cfg.needle_bins)
    n = cfg.eval_per_bin
    needle = np.concatenate([rng.integers(edges[b], edges[b + 1], size=n) for b in range(cfg.needle_bins)])
    tokens, target = kv_examples(cfg, rng, needle)
    return {"kv_tokens": tokens, "kv_target": target, "bin": np.repeat(np.arange(cfg.needle_bins), n)}


def profile_tokens(cfg: TrainConfig) -> np.ndarray:
    """[L] tokens whose embeddings feed the influence profiles: one LM sequence
    (tasks "lm"/"mixed"), else one retrieval context with a middle needle."""
    rng = np.random.default_rng([cfg.eval_seed, _PROFILE_STREAM])
    if cfg.task in ("retrieval", "passages"):
        return kv_examples(cfg, rng, np.array([cfg.kv_pairs // 2]))[0][0]
    return lm_tokens(cfg, rng, 1)[0]


def boundaries(cfg: TrainConfig) -> np.ndarray:
    """0-based positions of document starts (BOS) in the profile input."""
    if cfg.task in ("retrieval", "passages"):
        return np.array([0])
    return np.arange(0, cfg.lm_length, cfg.doc_length)


__getattr__ = old_names(__name__)  # middle_pairs: lostmid_jax._moved.NAMES (warns once, for one release)
