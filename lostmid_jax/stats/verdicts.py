"""Verdicts on a claim: reproduced, refuted or inconclusive, each claim judged on its own number.

Two rules, one per kind of claim the toolkit judges (docs/step0.md, "The verdict rule"):

:func:`decide` judges a number against the claim's stated threshold ("metric >= t", "metric <= t",
or "metric in [lo, hi]"), from its point T and 95% interval [lo, hi] over S independent rows (seeds):

1. not measured: T is NaN -> inconclusive.
2. too few rows: S < min_rows -> inconclusive (intervals from fewer rows are unreliable: the
   small-sample widening clips them at the metric's bound).
3. the whole interval on the claim's side (inside the band) -> REPRODUCED; the whole interval on the
   other side (outside the band) -> REFUTED; otherwise inconclusive. Where the interval straddles the
   claim's edge, the details give the seeds a power calculation asks for (:func:`rows_needed`).
4. a claim met that a null reference also meets cannot tell the theories apart: the verdict says so
   (its outcome is unchanged: the number is what it is).
5. where ``metric`` names an interval whose coverage was measured short of 0.93
   (:func:`lostmid_jax.stats.coverage.caveat`), the details carry that caveat (the outcome is unchanged).

:func:`decide_shape` judges "the reference is the measured shape within the seeds' noise" on its own
line, from the misfit test (:func:`lostmid_jax.stats.misfit.misfit_test`): p < alpha -> REFUTED;
otherwise inconclusive ("no misfit detected" where the seeds could reject: a test that does not reject
bounds nothing, so it never reproduces the claim). It never changes another claim's verdict.

A :class:`Verdict` has a short ``reason`` (a few words for the claim's one line) and the ``details``
a reader may want after it (the rule, the null references, coverage notes). Nothing is rounded toward a
claim.

>>> decide(0.0066, (0.0050, 0.0083), threshold=0.02, higher_is_better=False, rows=8).outcome
'REPRODUCED'
"""

from __future__ import annotations

import dataclasses
import math

from .coverage import caveat
from .format import fmt, fmt_interval

REPRODUCED, REFUTED, INCONCLUSIVE = "REPRODUCED", "REFUTED", "inconclusive"
MIN_ROWS = 4  # fewest seeds (independent rows) behind a verdict on a number
ALPHA = 0.05
POWER = 0.8  # the power a seed count "to decide" is computed for


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The outcome of :func:`decide` or :func:`decide_shape`.

    Attributes:
      outcome: REPRODUCED, REFUTED or "inconclusive".
      reason: the few words the claim's one line shows ("whole interval meets it", ...).
      details: the rest a reader may want (the rule, null references, coverage, seeds to decide).
      rows_needed: for an interval that straddles the claim, the seeds a power calculation asks for
        (None where not applicable).
      discriminates: False when a null reference meets the claim as well.
    """

    outcome: str
    reason: str
    details: str = ""
    rows_needed: int | None = None
    discriminates: bool = True

    def __str__(self) -> str:
        return f"{self.outcome} ({self.reason})"


def _finite(x) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


def rows_needed(value: float, ci: tuple[float, float], threshold: float, rows: int, *,
                power: float = POWER) -> int | None:
    """Seeds S' at which a 95% interval would exclude ``threshold`` with probability ``power``, if the true
    value were ``value`` and the spread per seed stayed: with se = h / t(0.975, S - 1) the standard error
    behind the half-width h,

        S' = ceil(S ((z(0.975) + z(power)) se / |value - threshold|)^2)   (at least S + 1).

    A power calculation under the assumption that the point is the truth (it may move with more seeds);
    None when the value sits on the threshold, h is unknown or S < 2."""
    from scipy import stats as _stats  # here, not at import: lostmid_jax.runs reads verdicts without numpy

    lo, hi = ci
    gap = abs(value - threshold)
    if not (_finite(lo) and _finite(hi)) or gap == 0 or rows < 2:
        return None
    se = max(value - lo, hi - value) / float(_stats.t.ppf(0.975, rows - 1))
    z = float(_stats.norm.ppf(0.975) + _stats.norm.ppf(power))
    return max(rows + 1, math.ceil(rows * (z * se / gap) ** 2 - 1e-9))  # 1e-9: 4.000000001 seeds is 4


def claim_text(*, threshold: float | None = None, higher_is_better: bool = True,
               band: tuple[float, float] | None = None) -> str:
    """'>= 0.99', '<= 0.02' or 'in [1.5, 2.5]': the claim as every line and table states it."""
    if band is not None:
        return f"in [{band[0]:g}, {band[1]:g}]"
    return f"{'>=' if higher_is_better else '<='} {threshold:g}"


def decide(value: float, ci: tuple[float, float], *, rows: int, threshold: float | None = None,
           higher_is_better: bool = True, band: tuple[float, float] | None = None, min_rows: int = MIN_ROWS,
           nulls: dict[str, float] | None = None, spec: str = ".4f", metric: str | None = None) -> Verdict:
    """The verdict on "value >= threshold" (higher_is_better), "value <= threshold", or "value in band"
    (module docstring).

    Args:
      value, ci: the point estimate and its 95% interval (lo, hi), the point the interval is centred on;
        NaN where unknown.
      rows: independent rows (seeds) behind the estimate.
      threshold: the claim's number (one-sided claims), used as stated.
      higher_is_better: True for ">=" claims (Spearman), False for "<=" (W1).
      band: (lo, hi) for a two-sided claim "lo <= value <= hi" instead of a threshold.
      min_rows: fewest rows behind a verdict.
      nulls: name -> the same metric scored for a null reference (a plain decreasing sequence, a theory
        row at a far-away parameter); a null that meets the claim marks it as not discriminating.
      spec: number format in the details.
      metric: "spearman" or "wasserstein" (None: no coverage caveat): the statistic whose interval this is.
    """
    if (threshold is None) == (band is None):
        raise ValueError("give exactly one of threshold and band")
    if band is not None and not band[0] <= band[1]:
        raise ValueError(f"band must be (lo, hi) with lo <= hi, got {band!r}")
    if not isinstance(rows, int) or rows < 0:
        raise ValueError(f"rows must be an integer >= 0, got {rows!r}")
    if not isinstance(min_rows, int) or min_rows < 2:
        raise ValueError(f"min_rows must be an integer >= 2, got {min_rows!r}")
    if metric not in (None, "spearman", "wasserstein"):
        raise ValueError(f"metric must be None, 'spearman' or 'wasserstein', got {metric!r}")
    rule = f"claim {claim_text(threshold=threshold, higher_is_better=higher_is_better, band=band)}"
    if band is not None:
        meets = lambda v: band[0] <= v <= band[1]  # noqa: E731
    else:
        meets = lambda v: v >= threshold if higher_is_better else v <= threshold  # noqa: E731
    f = lambda x: fmt(x, spec)  # noqa: E731
    null_note, discriminates = _null_note(nulls, meets, f)
    tag = "" if discriminates else "; a null meets it too"
    if not _finite(value):
        return Verdict(INCONCLUSIVE, "not measured", f"{rule}{null_note}", None, discriminates)
    if rows < min_rows:
        return Verdict(INCONCLUSIVE, f"{rows} seed(s) < {min_rows}", f"too few seeds for a verdict; {rule}{null_note}",
                       min_rows, discriminates)
    lo, hi = ci
    if not (_finite(lo) and _finite(hi)):
        return Verdict(INCONCLUSIVE, "no interval", f"{f(value)} without an interval; {rule}{null_note}",
                       None, discriminates)
    coverage = _coverage_note(metric, rows, value)
    text = f"{f(value)} {fmt_interval(lo, hi, spec)}; {rule}{null_note}{coverage}"
    if meets(lo) and meets(hi):
        return Verdict(REPRODUCED, f"whole interval meets it{tag}", f"the whole interval meets the claim: {text}",
                       None, discriminates)
    if band is not None:
        outside = hi < band[0] or lo > band[1]
        edge = band[0] if value < band[0] or (value <= band[1] and value - band[0] < band[1] - value) else band[1]
    else:
        outside = not meets(lo) and not meets(hi)
        edge = threshold
    if outside:
        return Verdict(REFUTED, f"whole interval misses it{tag}", f"the whole interval misses the claim: {text}",
                       None, discriminates)
    need = rows_needed(value, (lo, hi), edge, rows)
    more = (f"; a power calculation (80%, the point taken as the truth) asks for about {need} seeds"
            if need is not None else "; the point sits on the claim's edge: no seed count decides it")
    return Verdict(INCONCLUSIVE, f"interval straddles {edge:g}{tag}", f"the interval straddles the claim's edge: "
                   f"{text}{more}", need, discriminates)


def decide_shape(misfit, *, alpha: float = ALPHA) -> Verdict:
    """The verdict on "the reference is the measured shape within the seeds' noise" from a
    :class:`~lostmid_jax.stats.misfit.Misfit` (None: not tested; module docstring)."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    if misfit is None or not _finite(misfit.p_value):
        return Verdict(INCONCLUSIVE, "not tested", "the misfit test needs >= 2 seeds and >= 2 bins")
    p = "< 1e-300" if misfit.p_value < 1e-300 else f"= {misfit.p_value:.2g}"
    stat = f"T/dof = {misfit.reduced:.3g} over {misfit.dof} dof, sign-flip p {p}"
    if misfit.p_value < alpha:
        return Verdict(REFUTED, f"differs beyond noise, p {p}", f"every seed misses the reference alike: {stat}")
    if not misfit.can_reject(alpha):
        return Verdict(INCONCLUSIVE, f"smallest p {misfit.min_p:.3g} >= {alpha:g}",
                       f"{stat}; with these seeds the smallest sign-flip p is {misfit.min_p:.3g}: no misfit can be "
                       f"detected at {alpha:g}")
    return Verdict(INCONCLUSIVE, f"no misfit detected, p {p}",
                   f"no misfit beyond the seeds' noise was detected: {stat}. A test that does not reject is not "
                   "evidence of a fit: under noise a seed shares across positions it misses even gross misfits "
                   "(its power is in docs/step0.md); W1 is the claim that bounds the size of a misfit")


def _coverage_note(metric: str | None, rows: int, value: float) -> str:
    """'; coverage: ...' where the interval of ``metric`` at ``rows`` seeds covers short of 0.93 (rule 5)."""
    if metric is None:
        return ""
    note = caveat(metric, rows, value=value)
    return f"; coverage: {note}" if note else ""


def _null_note(nulls, meets, f) -> tuple[str, bool]:
    """'; null references: name value (meets it), ...' and whether no null meets the claim."""
    if not nulls:
        return "", True
    parts, meets_any = [], False
    for name, v in nulls.items():
        ok = _finite(v) and meets(v)
        meets_any |= ok
        parts.append(f"{name} {f(v)}{' (meets it)' if ok else ''}")
    note = "; null references: " + ", ".join(parts)
    if meets_any:
        note += "; a null reference meets the claim too, so this metric cannot tell the theories apart"
    return note, not meets_any
