"""Verdicts on a claim "metric <= threshold" (or >=, or in a band): reproduced, refuted or inconclusive.

One rule for every claim the toolkit judges (Step-0 Spearman, W1, on/off,
peak-to-trough). The inputs are a point estimate T, its 95% interval
[lo, hi] over S independent rows (seeds), optionally a misfit test of the
profile against the same reference (its p-value), a noise ceiling c for
correlation metrics, and null references scored the same way.

The rule, in this order:

1. not measured: T is NaN -> inconclusive.
2. misfit beyond noise: p < alpha -> REFUTED, whatever T (a reference that
   the profile misses beyond its per-position noise is not reproduced by a
   summary number that happens to pass; the number is still printed).
3. too few rows: S < min_rows -> inconclusive (intervals from fewer rows
   are unreliable: the small-sample widening clips them at the metric's
   bound).
4. correlation metrics with a ceiling c: the metric is judged on the
   disattenuated value T / c (classical correction for attenuation: the
   correlation the noiseless mean would reach), with the interval
   [lo / c_hi, hi / c_lo] (c's own interval where known). The ceiling alone
   is never compared with the threshold.
5. interval rule on the judged value: the whole interval on the claim's
   side (inside the band, for a two-sided claim) -> REPRODUCED; the whole
   interval on the other side (outside the band) -> REFUTED;
   otherwise inconclusive, with the rows that would decide, from the
   1/sqrt(S) shrinking of the half-width h:
   S_needed = ceil(S (h / |T - threshold|)^2).
6. a claim met that a null reference also meets cannot tell the theories
   apart: the verdict says so (its outcome is unchanged: the number is
   what it is).
7. an interval whose measured coverage falls short: when ``metric`` names
   the statistic ("spearman", "wasserstein"), a verdict decided by the
   interval rule appends the caveat of :func:`lostmid_jax.stats.coverage.caveat`
   for that statistic at S = rows (and for the noise ceiling's interval when
   the Spearman was disattenuated with it) where the mean coverage measured on
   synthetic ensembles is below 0.93 (the outcome is unchanged).

Nothing is rounded toward a claim.

>>> v = decide(0.30, (0.25, 0.35), threshold=0.985, higher_is_better=True, rows=8,
...            ceiling=0.98, misfit_p=1e-300)
>>> v.outcome
'REFUTED'
"""

from __future__ import annotations

import dataclasses
import math

from .coverage import caveat
from .format import fmt, fmt_interval

REPRODUCED, REFUTED, INCONCLUSIVE = "REPRODUCED", "REFUTED", "inconclusive"
MIN_ROWS = 4  # fewest seeds (independent rows) behind any verdict other than a misfit refutation
ALPHA = 0.05


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The outcome of :func:`decide` and the one-line reason a reader needs.

    Attributes:
      outcome: REPRODUCED, REFUTED or "inconclusive".
      reason: why, with the numbers (the judged value and interval, the rule).
      rows_needed: for an inconclusive interval, the rows (seeds) that would
        shrink it past the threshold (None where not applicable).
      discriminates: False when a null reference meets the claim as well.
    """

    outcome: str
    reason: str
    rows_needed: int | None = None
    discriminates: bool = True

    def __str__(self) -> str:
        return f"{self.outcome} ({self.reason})"


def _finite(x) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


def _meets(value: float, threshold: float, higher_is_better: bool) -> bool:
    return value >= threshold if higher_is_better else value <= threshold


def rows_needed(value: float, ci: tuple[float, float], threshold: float, rows: int) -> int | None:
    """Rows S' at which the 95% half-width h shrinks (as 1/sqrt(S)) below |value - threshold|:
    S' = ceil(S (h / |value - threshold|)^2); None when value sits on the threshold or h is unknown."""
    lo, hi = ci
    gap = abs(value - threshold)
    if not (_finite(lo) and _finite(hi)) or gap == 0:
        return None
    half = max(value - lo, hi - value)
    return max(rows + 1, math.ceil(rows * (half / gap) ** 2 - 1e-9))  # 1e-9: 4.000000001 seeds is 4


def disattenuate(value: float, ci: tuple[float, float], ceiling: float,
                 ceiling_ci: tuple[float, float] | None = None) -> tuple[float, tuple[float, float]]:
    """T / c with the interval [lo / c_hi, hi / c_lo] (c_lo = c_hi = c without ceiling_ci).

    The ceiling c = sqrt(reliability) bounds the correlation any reference can
    reach with a noisy mean; T / c estimates the correlation of the noiseless
    mean. A ceiling <= 0 (no reliable signal) leaves nothing to correct:
    the interval becomes (-inf, inf).
    """
    if not _finite(ceiling) or ceiling <= 0:
        return math.nan, (-math.inf, math.inf)
    c_lo, c_hi = ceiling_ci if ceiling_ci is not None and all(map(_finite, ceiling_ci)) else (ceiling, ceiling)
    c_lo, c_hi = max(min(c_lo, ceiling), 1e-12), max(c_hi, ceiling)
    lo, hi = ci
    return value / ceiling, (lo / c_hi if lo >= 0 else lo / c_lo, hi / c_lo if hi >= 0 else hi / c_hi)


def decide(value: float, ci: tuple[float, float], *, rows: int, threshold: float | None = None,
           higher_is_better: bool = True, band: tuple[float, float] | None = None, min_rows: int = MIN_ROWS,
           misfit_p: float | None = None, alpha: float = ALPHA, ceiling: float | None = None,
           ceiling_ci: tuple[float, float] | None = None, nulls: dict[str, float] | None = None,
           spec: str = ".4f", metric: str | None = None) -> Verdict:
    """The verdict on "value >= threshold" (higher_is_better), "value <= threshold", or "value in band"
    (module docstring).

    Args:
      value, ci: the point estimate and its 95% interval (lo, hi); NaN where unknown.
      rows: independent rows (seeds) behind the estimate.
      threshold: the claim's number (one-sided claims).
      higher_is_better: True for ">=" claims (Spearman), False for "<=" (W1).
      band: (lo, hi) for a two-sided claim "lo <= value <= hi" instead of a threshold: the whole interval
        inside -> REPRODUCED, the whole interval outside -> REFUTED.
      min_rows: fewest rows behind a verdict other than a misfit refutation.
      misfit_p: p-value of a misfit test of the profile against the same reference (None: not run).
      alpha: the misfit test's level.
      ceiling, ceiling_ci: noise ceiling of a correlation metric and its interval (None: not a correlation).
      nulls: name -> the same metric scored for a null reference (a plain decreasing sequence, a theory
        row at a far-away parameter); a null that meets the claim marks it as not discriminating.
      spec: number format in the reason.
      metric: "spearman" or "wasserstein" (None: no coverage caveat): the statistic whose interval this is,
        for the caveat of rule 7.
    """
    if (threshold is None) == (band is None):
        raise ValueError("give exactly one of threshold and band")
    if band is not None and not band[0] <= band[1]:
        raise ValueError(f"band must be (lo, hi) with lo <= hi, got {band!r}")
    if not isinstance(rows, int) or rows < 0:
        raise ValueError(f"rows must be an integer >= 0, got {rows!r}")
    if not isinstance(min_rows, int) or min_rows < 2:
        raise ValueError(f"min_rows must be an integer >= 2, got {min_rows!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    if metric not in (None, "spearman", "wasserstein"):
        raise ValueError(f"metric must be None, 'spearman' or 'wasserstein', got {metric!r}")
    if band is not None:
        rule = f"claim: in [{band[0]:g}, {band[1]:g}]"
        meets = lambda v: band[0] <= v <= band[1]  # noqa: E731
    else:
        rule = f"claim: {'>=' if higher_is_better else '<='} {threshold:g}"
        meets = lambda v: _meets(v, threshold, higher_is_better)  # noqa: E731
    if not _finite(value):
        return Verdict(INCONCLUSIVE, f"not measured; {rule}")
    f = lambda x: fmt(x, spec)  # noqa: E731
    null_note, discriminates = _null_note(nulls, meets, f)
    if misfit_p is not None and _finite(misfit_p) and misfit_p < alpha:
        p = "< 1e-300" if misfit_p < 1e-300 else f"= {misfit_p:.2g}"
        met = "meets" if meets(value) else "misses"
        return Verdict(REFUTED, f"the profile misses the reference beyond its noise (misfit p {p}); "
                                f"the value {f(value)} {met} the claim; {rule}{null_note}", None, discriminates)
    if rows < min_rows:
        return Verdict(INCONCLUSIVE, f"{rows} seed(s) < {min_rows}, too few for a verdict; {rule}{null_note}",
                       min_rows, discriminates)
    judged, judged_ci, what = value, tuple(ci), "value"
    if ceiling is not None:
        judged, judged_ci = disattenuate(value, ci, ceiling, ceiling_ci)
        if not _finite(judged):
            return Verdict(INCONCLUSIVE, f"noise ceiling {ceiling!r}: no reliable signal to compare; "
                                         f"{rule}{null_note}", None, discriminates)
        what = f"value / noise ceiling = {f(value)} / {f(ceiling)}"
    lo, hi = judged_ci
    if not (_finite(lo) and _finite(hi)):
        return Verdict(INCONCLUSIVE, f"{what} = {f(judged)} without an interval; {rule}{null_note}",
                       None, discriminates)
    coverage = _coverage_note(metric, rows, value, ceiling)
    text = f"{what} = {f(judged)} {fmt_interval(lo, hi, spec)}; {rule}{null_note}{coverage}"
    if meets(lo) and meets(hi):
        return Verdict(REPRODUCED, f"the whole interval meets it: {text}", None, discriminates)
    if band is not None:
        outside = hi < band[0] or lo > band[1]
        edge = band[0] if judged < band[0] or (judged <= band[1] and judged - band[0] < band[1] - judged) else band[1]
    else:
        outside = not meets(lo) and not meets(hi)
        edge = threshold
    if outside:
        return Verdict(REFUTED, f"the whole interval misses it: {text}", None, discriminates)
    need = rows_needed(judged, (lo, hi), edge, rows)
    more = f"; about {need} seeds would decide" if need is not None else ""
    return Verdict(INCONCLUSIVE, f"the interval straddles the claim's edge: {text}{more}", need, discriminates)


def _coverage_note(metric: str | None, rows: int, value: float, ceiling: float | None) -> str:
    """'; coverage: ...' for the intervals a verdict keyed on whose measured coverage falls short (rule 7)."""
    if metric is None:
        return ""
    notes = [caveat(metric, rows, value=value, ceiling=ceiling)]
    if ceiling is not None:
        notes.append(caveat("ceiling", rows))
    notes = [n for n in notes if n]
    return f"; coverage: {'; '.join(notes)}" if notes else ""


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
