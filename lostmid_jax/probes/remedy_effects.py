"""Measure a model (remedied or not) on a probe set, and compare a remedy with the unmodified model, paired.

Shapes: E examples, k passages, A examples with attention / influence measured (the first A), L = T the
prompt length, H layers, N heads.

    base = measure(model, probes)                         # position test, attention, influence, Step-0 share
    other = measure(applied.model, applied.probes)
    effect = compare(base, other)                         # paired differences over examples, and the verdict
    effect.verdict                                        # "helps" / "hurts" / "no difference beyond noise"

Per example e (the same examples, so every difference is paired):

- middle accuracy m_e: the mean right-or-wrong outcome (multiple choice,
  rank 1) over the middle passage(s) (probes.accuracy_by_passage.middle_passages);
  ends accuracy over passages 1 and k; overall accuracy over all k; middle
  log P(right answer) likewise;
- attention to the fact f_e: attention received by the fact's ids against
  uniform attention over the same mask (analysis.attention_received's
  vs_uniform), averaged over layers, heads and the fact's ids, in the prompt
  with the fact in the (first) middle passage;
- influence share s_e: sum over the fact's ids of ||d y_T / d x_j|| over the
  sum over all j (analysis.influence_profile, exact), same prompt;
- Step-0 share: the same share for the theory row w = theory.influence_row(T, H,
  a, prior=analysis.prior_for(cfg, T)) (uniform attention over the mask, a =
  ``theory_a``), averaged over the examples' fact spans.

Each difference (remedy minus unmodified) gets the paired bootstrap interval
of :func:`lostmid_jax.stats.paired.paired_difference`. The verdict reads the
middle accuracy: "helps" when its interval lies above 0, "hurts" below, else
"no difference beyond noise" (the ends and overall differences are reported
beside it, so a remedy that lifts the middle by lowering the ends shows).
Valley statistics (:func:`lostmid_jax.stats.valley.valley_fit`) are fitted
to the raw attention-received profiles (the practitioners' column means).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..stats.paired import PairedDifference, paired_difference
from .accuracy_by_passage import PositionResult, end_passages, middle_passages, position_test


def probe_passage(k: int) -> int:
    """The passage (1-based) whose prompt attention and influence are measured on: the first middle one (1 for k = 2)."""
    middle = middle_passages(k)
    return middle[0] if middle else 1


@dataclasses.dataclass(frozen=True, eq=False)
class Measurement:
    """What :func:`measure` returns (module docstring).

    Attributes:
      result: the position test (accuracy per passage with Wilson intervals, the middle-vs-ends gap).
      correct, logprob: [E, k] outcomes and right-answer log-probabilities.
      received_raw, received_vs_uniform: [A, L] attention received, mean over layers and heads.
      fact_attention: [A] mean vs_uniform over the fact's ids.
      influence: [A', L] influence norms (A' = 0 when not measured).
      fact_influence: [A'] the fact's share of the influence.
      step0_share: the Step-0 theory's share of the fact (mean over the A examples).
      prior: the label of the theory prior (analysis.prior_for) at this length.
      length: T.
    """

    result: PositionResult
    correct: np.ndarray
    logprob: np.ndarray
    received_raw: np.ndarray
    received_vs_uniform: np.ndarray
    fact_attention: np.ndarray
    influence: np.ndarray
    fact_influence: np.ndarray
    step0_share: float
    prior: str
    length: int


def _spans(probes, examples: int) -> list[tuple[int, int]]:
    p = probe_passage(probes.passages) - 1
    return [(int(probes.fact_start[e, p]), int(probes.fact_start[e, p] + probes.fact_length[e]))
            for e in range(examples)]


def step0_share(cfg, length: int, spans, *, a: float = 0.5) -> tuple[float, str]:
    """(mean over ``spans`` of sum_{j in span} w_j, the prior's label) for the Step-0 row w of ``cfg`` at
    ``length`` (theory.influence_row with prior analysis.prior_for(cfg, length); the row sums to 1)."""
    from ..analysis import prior_for
    from ..theory import influence_row

    prior = prior_for(cfg, length)
    w = np.asarray(influence_row(length, cfg.depth, a, prior=prior), np.float64)
    return float(np.mean([w[s:t].sum() for s, t in spans])), prior.label


def measure(model, probes, *, attention_examples: int = 8, influence_examples: int = 0, batch: int = 8,
            theory_a: float = 0.5, n_boot: int = 2000, seed: int = 0, progress=None) -> Measurement:
    """Score every prompt, and measure attention and influence on the first examples' middle prompts.

    Args:
      model: an nn.Decoder with a vocabulary.
      probes: a probes.ProbeSet.
      attention_examples: A, examples whose attention received is measured (clipped to E).
      influence_examples: examples whose exact influence profile is measured (0: none; D reverse passes each).
      batch: rows per scoring forward.
      theory_a: the attention strength a of the Step-0 theory row.
      n_boot, seed: the position test's bootstrap.
      progress: optional callable(done, total) for the scoring.
    """
    import jax.numpy as jnp

    from ..analysis import attention_received, influence_profile
    from .scoring import score_probes

    scores = score_probes(model, probes, batch=batch, progress=progress)
    result = position_test(scores, n_boot=n_boot, seed=seed)
    count = min(attention_examples, probes.examples)
    p = probe_passage(probes.passages) - 1
    spans = _spans(probes, count)
    raw_rows, ratio_rows, fact_att = [], [], []
    for e, (s, t) in enumerate(spans):
        raw, ratio = attention_received(model, probes.prompts[e, p])
        raw_rows.append(raw.mean(axis=(0, 1)))
        ratio_rows.append(ratio.mean(axis=(0, 1)))
        fact_att.append(float(ratio[..., s:t].mean()))
    infl_rows, fact_infl = [], []
    for e, (s, t) in enumerate(_spans(probes, min(influence_examples, probes.examples))):
        x = model.embed(jnp.asarray(probes.prompts[e, p][None], jnp.int32))[0]
        norms = np.asarray(influence_profile(model, x, method="exact").norms, np.float64)
        infl_rows.append(norms)
        fact_infl.append(float(norms[s:t].sum() / norms.sum()))
    share, label = step0_share(model.cfg, probes.length, spans or _spans(probes, 1), a=theory_a)
    length = probes.length
    return Measurement(result=result, correct=np.asarray(scores.correct, bool), logprob=scores.right_logprob,
                       received_raw=np.asarray(raw_rows).reshape(-1, length),
                       received_vs_uniform=np.asarray(ratio_rows).reshape(-1, length),
                       fact_attention=np.asarray(fact_att), influence=np.asarray(infl_rows).reshape(-1, length),
                       fact_influence=np.asarray(fact_infl), step0_share=share, prior=label, length=length)


@dataclasses.dataclass(frozen=True, eq=False)
class Effect:
    """A remedy against the unmodified model, paired over examples (module docstring).

    Attributes:
      middle, ends, overall: PairedDifference of the accuracy (remedy minus unmodified).
      middle_logprob: PairedDifference of the middle log P(right answer).
      fact_attention, fact_influence: PairedDifference, or None with fewer than 2 examples measured.
      step0_ratio: the Step-0 theory's predicted ratio of the fact's influence share (remedy / unmodified).
    """

    middle: PairedDifference
    ends: PairedDifference
    overall: PairedDifference
    middle_logprob: PairedDifference
    fact_attention: PairedDifference | None
    fact_influence: PairedDifference | None
    step0_ratio: float

    @property
    def verdict(self) -> str:
        """"helps", "hurts" or "no difference beyond noise" (the middle accuracy's interval)."""
        return {1: "helps", -1: "hurts", 0: "no difference beyond noise"}[self.middle.sign]


def _over(values: np.ndarray, passages) -> np.ndarray:
    return values[:, [q - 1 for q in passages]].mean(axis=1)


def _paired(a, b, n_boot: int, seed: int) -> PairedDifference | None:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return paired_difference(a, b, n_boot=n_boot, seed=seed) if a.size >= 2 and a.size == b.size else None


def compare(base: Measurement, other: Measurement, *, n_boot: int = 2000, seed: int = 0) -> Effect:
    """The paired differences other minus base over the same examples, and the Step-0 prediction."""
    if base.correct.shape != other.correct.shape:
        raise ValueError(f"base and other must be measured on the same examples and passages, got "
                         f"{base.correct.shape} and {other.correct.shape}")
    k = base.correct.shape[1]
    middle = middle_passages(k) or (probe_passage(k),)
    ends = end_passages(k)
    acc_b, acc_o = base.correct.astype(np.float64), other.correct.astype(np.float64)
    pair = lambda a, b, i: paired_difference(a, b, n_boot=n_boot, seed=seed + i)  # noqa: E731
    return Effect(
        middle=pair(_over(acc_o, middle), _over(acc_b, middle), 0),
        ends=pair(_over(acc_o, ends), _over(acc_b, ends), 1),
        overall=pair(acc_o.mean(axis=1), acc_b.mean(axis=1), 2),
        middle_logprob=pair(_over(other.logprob, middle), _over(base.logprob, middle), 3),
        fact_attention=_paired(other.fact_attention, base.fact_attention, n_boot, seed + 4),
        fact_influence=_paired(other.fact_influence, base.fact_influence, n_boot, seed + 5),
        step0_ratio=other.step0_share / base.step0_share if base.step0_share > 0 else math.nan)


__all__ = ["Effect", "Measurement", "compare", "measure", "probe_passage", "step0_share"]
