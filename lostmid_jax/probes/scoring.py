"""Score a position-controlled probe without sampling: answer log-probability, multiple-choice rank, greedy match.

Shapes: E examples, k passages, T prompt ids, C candidates (0 the right one), A answer ids.

    scores = score_probes(model, probes)     # model: an nn.Decoder with a vocabulary (nn.load_hf gives one)
    scores.logprob [E, k, C]; scores.rank [E, k]; scores.correct [E, k]; scores.exact [E, k]

For candidate c with ids a_1..a_n after prompt t_1..t_T (one forward over
t_1..t_T a_1..a_{n-1}, logits z):

- log-probability: log P(c) = sum_{m=1..n} log softmax(z_{T+m-1})[a_m], the
  sum over its ids (natural log);
- rank among the candidates: 1 + #{c' != 0 : log P(c') >= log P(0)} (ties
  count against the right answer, so a model that cannot tell them apart is
  never credited); ``correct`` = rank 1, the multiple-choice accuracy;
- greedy exact match: argmax z_{T+m-1} = a_m for every m of the right answer.
  Greedy decoding (temperature 0, the lowest id among equal maxima, as
  transformers' ``generate``) produces a_1..a_n exactly when each step's
  argmax given the right prefix is the next right id, so this is the
  practitioners' exact match on the answer's ids, read from the same forward;
- greedy output: for the same reason the argmaxes g_m = argmax z_{T+m-1} of
  the right answer's forward are greedy decoding's own tokens up to and
  including the first g_m != a_m: ``greedy`` keeps g_1..g_m (m <= n, the
  rest -1), what the model writes, read without another forward pass.

Prompts of different lengths (``probes.prompt_lengths``: the baselines) are
padded on the right; the logits are read at each row's own positions, so
the padding, after them, changes nothing in a causal model.

Only the last prompt position and the answer positions reach the LM head,
so the [.., T, V] logits are never formed. Candidates of one id share the
prompt's forward (one row per prompt instead of one per candidate).
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from ..validation import check_int
from ..retrieval.design import ProbeSet


@dataclasses.dataclass(frozen=True, eq=False)
class ProbeScores:
    """Scores of a probe (module docstring).

    Attributes:
      logprob: [E, k, C] float64 log-probability of each candidate.
      rank: [E, k] int rank of the right answer among the C candidates (1 = best).
      exact: [E, k] bool greedy exact match of the right answer.
      candidates: C.
      greedy: [E, k, A] int greedy decoding's ids up to its first departure from the right answer, then -1
        (module docstring); None when not recorded.
    """

    logprob: np.ndarray
    rank: np.ndarray
    exact: np.ndarray
    candidates: int
    greedy: np.ndarray | None = None

    @property
    def correct(self) -> np.ndarray:
        """[E, k] bool: the right answer ranks first (multiple choice)."""
        return self.rank == 1

    @property
    def right_logprob(self) -> np.ndarray:
        """[E, k] log-probability of the right answer."""
        return self.logprob[..., 0]


def check_fits(cfg, positions_needed: int, *, name: str = "length") -> None:
    """A model with a learned position table must hold every position a forward uses (ValueError naming
    ``name``); a model without a vocabulary cannot be probed (naming ``model``)."""
    if cfg.vocab_size is None:
        raise ValueError("model: the probes need a model with a vocabulary (cfg.vocab_size is None)")
    if cfg.position == "learned" and positions_needed > cfg.max_positions:
        raise ValueError(f"{name}: the probe needs {positions_needed} positions (prompt plus answer) but the model's "
                         f"learned position table holds max_positions={cfg.max_positions}")


@functools.partial(jax.jit, static_argnames=("graphdef", "answer_width"))
def _answer_logits(graphdef, state, tokens, starts, *, answer_width: int):
    """log softmax of the logits at positions t_b - 1 .. t_b + A - 2 of row b of tokens [B, W] (t_b = starts[b],
    the row's prompt length): [B, A, V] float32."""
    model = nnx.merge(graphdef, state)
    h = model(model.embed(tokens))
    index = starts[:, None] - 1 + jnp.arange(answer_width)[None, :]  # [B, A]
    h = jnp.take_along_axis(h, index[:, :, None], axis=1)
    return jax.nn.log_softmax(model.logits(h).astype(jnp.float32), axis=-1)


def _rows(probes: ProbeSet, shared: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Token rows [R, T + A - 1] (prompt, answer, right padding with 0), their prompt lengths [R] and their
    (e, p, c) index [R, 3]; one row per prompt when ``shared``."""
    e_count, k, length = probes.prompts.shape
    c_count = 1 if shared else probes.candidates
    width = probes.answers.shape[2] - 1
    rows = np.zeros((e_count * k * c_count, length + width), np.int32)
    starts, index = [], []
    for e in range(e_count):
        for p in range(k):
            prompt = probes.prompt(e, p)
            for c in range(c_count):
                rows[len(index), :len(prompt) + width] = np.concatenate([prompt, probes.answers[e, c, :width]])
                starts.append(len(prompt))
                index.append((e, p, c))
    return rows, np.asarray(starts, np.int32), np.asarray(index)


def score_probes(model, probes: ProbeSet, *, batch: int = 8, progress=None) -> ProbeScores:
    """Log-probabilities, ranks and greedy exact matches of every candidate of every prompt.

    Args:
      model: an nn.Decoder with a vocabulary (``cfg.vocab_size``).
      probes: a :class:`lostmid_jax.retrieval.design.ProbeSet` whose ids lie in the vocabulary.
      batch: rows per forward pass (>= 1; the last batch is padded, so one compilation serves all).
      progress: optional callable(done, total) after each batch.

    Raises:
      ValueError: naming ``model`` (no vocabulary), ``length`` (beyond a learned position table),
        ``probes`` (ids outside the vocabulary) or ``batch``.
    """
    cfg = model.cfg
    check_fits(cfg, probes.positions_needed)
    batch = check_int("batch", batch, 1)
    top = max(int(probes.prompts.max()), int(probes.answers.max()))
    if min(int(probes.prompts.min()), int(probes.answers.min())) < 0 or top >= cfg.vocab_size:
        raise ValueError(f"probes: ids must lie in [0, {cfg.vocab_size}) for this model, found {top}")
    shared = int(probes.answer_lengths.max()) == 1
    rows, starts, index = _rows(probes, shared)
    graphdef, state = nnx.split(model)
    e_count, k, _ = probes.prompts.shape
    c_count, width = probes.candidates, probes.answers.shape[2]
    logprob = np.zeros((e_count, k, c_count))
    exact = np.zeros((e_count, k), bool)
    greedy = np.full((e_count, k, width), -1, np.int64)
    for start in range(0, len(rows), batch):
        chunk, first = rows[start:start + batch], starts[start:start + batch]
        pad = batch - len(chunk)
        if pad:
            chunk, first = np.concatenate([chunk, np.repeat(chunk[-1:], pad, axis=0)]), np.pad(first, (0, pad), "edge")
        logp = np.asarray(_answer_logits(graphdef, state, jnp.asarray(chunk), jnp.asarray(first),
                                         answer_width=width), np.float64)[:batch - pad]  # [b, A, V]
        for row, (e, p, c) in zip(logp, index[start:start + batch]):
            for cand in (range(c_count) if shared else (c,)):
                n = int(probes.answer_lengths[e, cand])
                ids = probes.answers[e, cand, :n]
                logprob[e, p, cand] = float(row[np.arange(n), ids].sum())
                if cand == 0:
                    best = np.argmax(row[:n], axis=-1)
                    exact[e, p] = bool(np.all(best == ids))
                    wrong = np.flatnonzero(best != ids)
                    kept = n if exact[e, p] else int(wrong[0]) + 1
                    greedy[e, p, :kept] = best[:kept]
        if progress is not None:
            progress(min(start + batch, len(rows)), len(rows))
    rank = 1 + np.sum(logprob[..., 1:] >= logprob[..., :1], axis=-1)
    return ProbeScores(logprob=logprob, rank=rank, exact=exact, candidates=c_count, greedy=greedy)


__all__ = ["ProbeScores", "check_fits", "score_probes"]
