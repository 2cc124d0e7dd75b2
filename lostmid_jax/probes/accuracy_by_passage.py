"""Accuracy by the fact's passage, with intervals, and the paired middle-vs-ends test.

Shapes: E examples, k passages (p = 1..k).

    result = position_test(scores)      # scores: scoring.ProbeScores
    result.accuracy, result.accuracy_lo, result.accuracy_hi     # [k] multiple-choice accuracy, Wilson 95%
    result.exact, result.exact_lo, result.exact_hi              # [k] greedy exact match, Wilson 95%
    result.logprob, result.logprob_lo, result.logprob_hi        # [k] mean log P(right answer), t 95%
    result.accuracy_gap, result.logprob_gap                     # stats.paired.PairedDifference
    result.verdict                                              # "middle worse" / "middle better" / "no difference ..."
    rates(baseline_scores)          # one passage (closed-book, oracle): the same rates and intervals, no positions

Definitions:

- ends = passages {1, k}; middle = {(k + 1) / 2} for odd k, {k/2, k/2 + 1}
  for even k >= 4 (k = 2 has no middle: the gaps are NaN and the verdict says so);
- per example e: gap_e = mean_{p in middle} y_e,p - mean_{p in ends} y_e,p with
  y the right-or-wrong outcome (accuracy_gap) or log P(right answer)
  (logprob_gap); the paired difference over examples, its 95% bootstrap
  interval and verdict come from :func:`lostmid_jax.stats.paired.paired_difference`;
- Wilson intervals: :func:`lostmid_jax.stats.intervals.wilson_interval` of
  (right answers, E) per passage; the log-probability's interval is the t
  interval over examples (:func:`lostmid_jax.stats.intervals.t_interval`).

The verdict reads the multiple-choice accuracy gap (the practitioners'
quantity): "middle worse" when its whole interval lies below 0, "middle
better" above, else "no difference beyond noise"; the log-probability gap,
more sensitive, is reported beside it.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..stats.intervals import t_interval, wilson_interval
from ..stats.paired import PairedDifference, paired_difference


def middle_passages(k: int) -> tuple[int, ...]:
    """The middle passage(s), 1-based: (k+1)/2 for odd k, (k/2, k/2+1) for even k >= 4, none for k = 2."""
    if k < 2:
        raise ValueError(f"passages must be >= 2, got {k}")
    if k == 2:
        return ()
    return ((k + 1) // 2,) if k % 2 else (k // 2, k // 2 + 1)


def end_passages(k: int) -> tuple[int, int]:
    """The first and the last passage: (1, k)."""
    return 1, k


@dataclasses.dataclass(frozen=True, eq=False)
class PositionResult:
    """Per-passage rates with intervals, the paired gaps and the verdict (module docstring)."""

    examples: int
    accuracy: np.ndarray
    accuracy_lo: np.ndarray
    accuracy_hi: np.ndarray
    exact: np.ndarray
    exact_lo: np.ndarray
    exact_hi: np.ndarray
    logprob: np.ndarray
    logprob_lo: np.ndarray
    logprob_hi: np.ndarray
    accuracy_gap: PairedDifference
    logprob_gap: PairedDifference
    middle: tuple[int, ...]
    chance: float

    @property
    def passages(self) -> int:
        return self.accuracy.size

    @property
    def verdict(self) -> str:
        """"middle worse", "middle better", "no difference beyond noise" or "no middle passage (k = 2)"."""
        if not self.middle:
            return "no middle passage (k = 2)"
        sign = self.accuracy_gap.sign
        return {-1: "middle worse", 1: "middle better", 0: "no difference beyond noise"}[sign]


def _rates(outcomes: np.ndarray):
    counts = outcomes.sum(axis=0)
    ci = np.array([wilson_interval(int(c), outcomes.shape[0]) for c in counts])
    return counts / outcomes.shape[0], ci[:, 0], ci[:, 1]


@dataclasses.dataclass(frozen=True, eq=False)
class Rates:
    """Rates of one prompt set without positions (the closed-book and oracle baselines): accuracy, exact match
    (Wilson 95%) and mean log P(right answer) (t 95%), each a float."""

    examples: int
    accuracy: float
    accuracy_lo: float
    accuracy_hi: float
    exact: float
    exact_lo: float
    exact_hi: float
    logprob: float
    logprob_lo: float
    logprob_hi: float
    chance: float


def rates(scores) -> Rates:
    """The :class:`Rates` of the scores of a one-passage probe (E >= 2 examples, k = 1)."""
    correct = np.asarray(scores.correct, bool)
    if correct.ndim != 2 or correct.shape[0] < 2 or correct.shape[1] != 1:
        raise ValueError(f"scores must hold >= 2 examples of one passage, got shape {correct.shape}")
    acc, ex = _rates(correct), _rates(np.asarray(scores.exact, bool))
    logp = np.asarray(scores.right_logprob, np.float64)
    lo, hi = t_interval(logp)
    return Rates(examples=correct.shape[0], accuracy=float(acc[0][0]), accuracy_lo=float(acc[1][0]),
                 accuracy_hi=float(acc[2][0]), exact=float(ex[0][0]), exact_lo=float(ex[1][0]),
                 exact_hi=float(ex[2][0]), logprob=float(logp.mean()), logprob_lo=float(lo[0]),
                 logprob_hi=float(hi[0]), chance=1.0 / scores.candidates)


def _gap(values: np.ndarray, middle, n_boot: int, seed: int) -> PairedDifference:
    if not middle:
        return PairedDifference(mean=math.nan, lo=math.nan, hi=math.nan, units=values.shape[0])
    k = values.shape[1]
    mid = values[:, [p - 1 for p in middle]].mean(axis=1)
    ends = values[:, [p - 1 for p in end_passages(k)]].mean(axis=1)
    return paired_difference(mid, ends, n_boot=n_boot, seed=seed)


def position_test(scores, *, n_boot: int = 2000, seed: int = 0) -> PositionResult:
    """Accuracy, exact match and log-probability per passage with 95% intervals, and the paired gaps.

    Args:
      scores: a :class:`.scoring.ProbeScores` of E >= 2 examples and k >= 2 passages.
      n_boot, seed: the paired bootstrap's replicates and seed.
    """
    correct = np.asarray(scores.correct, bool)
    if correct.ndim != 2 or correct.shape[0] < 2 or correct.shape[1] < 2:
        raise ValueError(f"scores must hold >= 2 examples and >= 2 passages, got shape {correct.shape}")
    k = correct.shape[1]
    middle = middle_passages(k)
    logp = np.asarray(scores.right_logprob, np.float64)
    acc = _rates(correct)
    ex = _rates(np.asarray(scores.exact, bool))
    lp_lo, lp_hi = t_interval(logp)
    return PositionResult(
        examples=correct.shape[0], accuracy=acc[0], accuracy_lo=acc[1], accuracy_hi=acc[2],
        exact=ex[0], exact_lo=ex[1], exact_hi=ex[2],
        logprob=logp.mean(axis=0), logprob_lo=lp_lo, logprob_hi=lp_hi,
        accuracy_gap=_gap(correct.astype(np.float64), middle, n_boot, seed),
        logprob_gap=_gap(logp, middle, n_boot, seed + 1), middle=middle, chance=1.0 / scores.candidates)


__all__ = ["PositionResult", "Rates", "end_passages", "middle_passages", "position_test", "rates"]
