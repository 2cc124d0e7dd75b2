"""The Step-0 table and verdict, computed from the summaries only.

Each of the paper's Step-0 claims (arXiv:2603.10123; docs/theory.md §5:
Spearman >= 0.99 and Wasserstein-1 <= 0.02 against theory, Spearman >= 0.99
between RoPE on and off, log10 peak-to-trough in [1.5, 2.5], about 1e2) is
judged on each preset's "native" variant on its own number and 95% interval,
at the threshold stated in ``report.CLAIMS``, by
:func:`lostmid_jax.stats.verdicts.decide` (docs/step0.md states the rule):
REPRODUCED (the whole interval meets the claim), REFUTED (the whole interval
misses it) or inconclusive. The Spearman judged is the rank-corrected one
(:mod:`lostmid_jax.stats.agreement`), labelled a monotonicity check: every
theory row decreases, so null references (a plain decreasing ramp, theory rows
at far-apart constant a) are scored by the same estimators beside it. W1 is
judged against three theory rows: the measured a_l, the log-shape fit of a
and the a that minimizes W1 (the paper's most favourable reading). "The theory
row is the measured shape within noise" is a claim of its own
(:func:`lostmid_jax.stats.verdicts.decide_shape`, the misfit test) and never
changes another claim's verdict.

The verdict prints one line per claim (at most LINE_WIDTH characters: claim,
number [interval], outcome, a few words), two lines that say what holds and
what fails, and below a line reading DETAILS the reasons, nulls, coverage
notes and misfit statistics.

Nothing is rounded toward the paper.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ...present.verdict_table import DETAILS
from ...stats.format import fmt, fmt_interval
from ...stats.verdicts import INCONCLUSIVE, REFUTED, REPRODUCED, claim_text, decide, decide_shape
from .report import CLAIMS, PEAK_TO_TROUGH_BAND, THRESHOLDS, metric_ci

SMOKE_NOTE = "(smoke run: too small to test the paper's claims)"
CITE = "docs/theory.md §5"
LINE_WIDTH = 160
_SPEC = {"spearman": ".4f", "onoff": ".4f", "wasserstein": ".4f", "peak_to_trough": ".2f"}
_ROW_LABEL = {"measured": "measured a_l", "fitted": "log-fit a", "w1fit": "W1-chosen a"}
_NUMBERS = re.compile(r" \d+\.\d+ \[[^\]]*\]")  # "0.284 [0.274, 0.293]" in a label: left out of the summary


def _claim(claim: str) -> str:
    """'>= 0.99', '<= 0.02' or 'in [1.5, 2.5]': the claim at its stated threshold."""
    if claim == "peak_to_trough":
        return claim_text(band=PEAK_TO_TROUGH_BAND)
    return claim_text(threshold=THRESHOLDS[claim], higher_is_better=claim != "wasserstein")


def judge(claim: str, value: float, ci: tuple[float, float], *, rows: int, nulls: dict | None = None):
    """The :class:`~lostmid_jax.stats.verdicts.Verdict` on ``claim`` (a key of CLAIMS) at its stated threshold."""
    if claim == "peak_to_trough":
        kind = dict(band=PEAK_TO_TROUGH_BAND)
    else:
        kind = dict(threshold=THRESHOLDS[claim], higher_is_better=claim != "wasserstein")
    return decide(value, ci, rows=rows, nulls=nulls, spec=_SPEC[claim],
                  metric="wasserstein" if claim == "wasserstein" else None, **kind)


def _cell(s: dict, name: str, spec: str, value=None) -> str:
    value = s[name] if value is None else value
    return f"{fmt(value, spec)} {fmt_interval(*metric_ci(s, name), spec)}"


def _onoff(s: dict) -> float:
    """The bias-corrected paired Spearman its interval is centred on (the plain one where it has none)."""
    pair = s.get("agreement", {}).get(("total", "native", s["length"]))
    return pair.spearman_bc if pair is not None and math.isfinite(pair.spearman_bc) else s["spearman_vs_native"]


def _rows(summaries: dict, head: list[tuple[str, int]], cells) -> list[str]:
    header = f"{'preset':<12}{'variant':<10}" + "".join(f"{h:>{w}}" for h, w in head)
    out = [header, "-" * len(header)]
    for (name, variant), s in summaries.items():
        out.append(f"{name:<12}{variant:<10}" + "".join(f"{c:>{w}}" for c, (_, w) in zip(cells(s), head)))
    return out


def _judged(s: dict, metric: str, kind: str) -> tuple[float, tuple[float, float]]:
    """The point a verdict judges and its interval (the interval is centred on it): the rank-corrected
    Spearman, or the bias-corrected W1 with the row rebuilt in each leave-one-out; NaN without seeds."""
    if metric == "spearman":
        return s.get(f"spearman_rc_{kind}", math.nan), metric_ci(s, f"spearman_rc_{kind}")
    return s.get(f"wasserstein_bc_{kind}", math.nan), metric_ci(s, f"wasserstein_{kind}")


def table(summaries: dict) -> str:
    """Two fixed-width blocks, one row per (preset, variant) each, 95% CIs in brackets: agreement with
    theory, then the shape of the profile. Each point printed with an interval is the one it is centred on."""
    lines = ["Agreement of the mean normalized total profile with theory rows: measured a_l (meas), the log-shape "
             "fit of a (fit: a_fit) and the a minimizing W1 (W1-ch: a_w1); rho: rank-corrected Spearman [95% CI], "
             "W1: bias-corrected Wasserstein-1 [95% jackknife-t CI, the row rebuilt per left-out seed]; "
             "rho nat: bias-corrected Spearman vs the preset's native variant (paired by seed) (docs/step0.md)"]

    def judged(s, metric, kind, spec):
        value, ci = _judged(s, metric, kind)
        return f"{fmt(value, spec)} {fmt_interval(*ci, spec)}"

    def agreement_cells(s):
        return [str(s["seeds"]), str(s["length"]), str(s["depth"]), judged(s, "spearman", "measured", ".3f"),
                judged(s, "wasserstein", "measured", ".4f"), _cell(s, "a_fit", ".3f"),
                judged(s, "spearman", "fitted", ".3f"), judged(s, "wasserstein", "fitted", ".4f"),
                _cell(s, "a_w1", ".3f"), judged(s, "wasserstein", "w1fit", ".4f"),
                _cell(s, "spearman_vs_native", ".3f", _onoff(s))]

    lines += _rows(summaries, [("S", 3), ("L", 6), ("H", 4), ("rho meas", 22), ("W1 meas", 25),
                               ("a_fit [95% CI]", 22), ("rho fit", 22), ("W1 fit", 25), ("a_w1 [95% CI]", 22),
                               ("W1 W1-ch", 25), ("rho nat", 22)], agreement_cells)
    lines += ["", "Shape of the profile: mean a_l (t interval over seeds); log10 peak-to-trough over all j, over "
                  "j < L, and of the measured-a_l theory row; score/tot: median_j<L ||J_score|| / ||J_total||; "
                  "misfit p: sign-flip p of the log-fit row"]

    def shape_cells(s):
        m = s.get("misfit", {}).get(("fitted", s["length"]))
        return [_cell(s, "a_mean", ".3f", float(np.mean(s["alphas"]))), _cell(s, "log10_peak_to_trough", ".2f"),
                _cell(s, "log10_peak_to_trough_body", ".2f"), _cell(s, "theory_log10_peak_to_trough", ".2f"),
                _cell(s, "score_fraction_median", ".2e"), fmt(m.p_value if m is not None else math.nan, ".2g")]

    lines += _rows(summaries, [("mean a_l [95% CI]", 24), ("log10 p/t", 20), ("(j<L)", 20), ("theory", 20),
                               ("score/tot", 31), ("misfit p", 10)], shape_cells)
    return "\n".join(lines)


def _line(label: str, measured: str, v, paper: float | None) -> str:
    """'  label: measured: OUTCOME (reason; paper X)', the claim's one line (lostmid_jax.present.verdict_table reads
    it)."""
    cite = "" if paper is None else f"; paper {paper:g}"
    return f"  {label}: {measured}: {v.outcome} ({v.reason}{cite})"


def _preset_claims(name: str, s: dict, off: dict | None, rope: bool) -> list[tuple]:
    """[(label, measured, Verdict, details, the paper's number or None)] of every claim of one preset's native
    variant."""
    seeds, length = s["seeds"], s["length"]
    nulls = s.get("nulls", {})
    ag = s.get("agreement", {})
    out = []
    for kind in ("measured", "fitted"):
        value, ci = _judged(s, "spearman", kind)
        v = judge("spearman", value, ci, rows=seeds, nulls={n: x.get("spearman_rc") for n, x in nulls.items()})
        a = ag.get(("total", kind, length))
        extra = (f"plain {fmt(s[f'spearman_{kind}'], '.4f')}, attenuation by the noise "
                 f"{fmt(a.attenuation if a else math.nan, '.4f')}, noise ceiling {fmt(a.ceiling if a else math.nan, '.4f')}"
                 " (informational); a monotonicity check: every theory row decreases")
        out.append((f"Spearman vs theory {_claim('spearman')}, {_ROW_LABEL[kind]}",
                    f"{fmt(value, '.4f')} {fmt_interval(*ci, '.4f')}", v, f"{extra}; {v.details}", CLAIMS["spearman"]))
    for kind in ("measured", "fitted", "w1fit"):
        value, ci = _judged(s, "wasserstein", kind)
        v = judge("wasserstein", value, ci, rows=seeds, nulls={n: x.get("wasserstein_bc") for n, x in nulls.items()})
        label = _ROW_LABEL[kind]
        if kind != "measured":
            a_name = "a_fit" if kind == "fitted" else "a_w1"
            label += f" {s[a_name]:.3f} {fmt_interval(*metric_ci(s, a_name), '.3f')}"
        extra = (f"plain {fmt(s[f'wasserstein_{kind}'], '.4f')}; the interval includes the choice of "
                 f"{'a_l' if kind == 'measured' else 'a'} (rebuilt per left-out seed)")
        out.append((f"W1 vs theory {_claim('wasserstein')}, {label}", f"{fmt(value, '.4f')} {fmt_interval(*ci, '.4f')}",
                    v, f"{extra}; {v.details}", CLAIMS["wasserstein"]))
    for kind in ("measured", "fitted", "w1fit"):
        m = s.get("misfit", {}).get((kind, length))
        v = decide_shape(m)
        measured = f"T/dof {m.reduced:.3g} over {m.dof} dof" if m is not None and math.isfinite(m.chi2) else "not tested"
        out.append((f"shape = theory within noise, {_ROW_LABEL[kind]}", measured, v, v.details, None))
    if off is not None:  # the on/off claim needs the "nopos" variant of the same seeds
        label = "RoPE on vs off, Spearman" if rope else "positions on vs off, Spearman (not RoPE, so not the paper's)"
        onoff, onoff_bc = off["spearman_vs_native"], _onoff(off)
        onoff_ci = metric_ci(off, "spearman_vs_native")
        v = judge("onoff", onoff_bc, onoff_ci, rows=off["seeds"])
        out.append((f"{label} {_claim('onoff')}", f"{fmt(onoff_bc, '.4f')} {fmt_interval(*onoff_ci, '.4f')}", v,
                    f"paired by seed (the same weights; no noise ceiling: their noise is shared); bias-corrected "
                    f"point, plain {fmt(onoff, '.4f')}; {v.details}", CLAIMS["onoff"] if rope else None))
    ptt, ptt_ci = s["log10_peak_to_trough"], metric_ci(s, "log10_peak_to_trough")
    v = judge("peak_to_trough", ptt, ptt_ci, rows=seeds)
    out.append((f"log10 peak-to-trough {_claim('peak_to_trough')}",
                f"{ptt:.2f} {fmt_interval(*ptt_ci, '.2f')}", v,
                f"over all j; over j < L {_cell(s, 'log10_peak_to_trough_body', '.2f')}; theory row (measured a_l) "
                f"{_cell(s, 'theory_log10_peak_to_trough', '.2f')}; {v.details}", CLAIMS["peak_to_trough"]))
    return out


def _in_short(claims: list) -> list[str]:
    """'  holds: ...', '  fails: ...', '  undecided: ...': the claims grouped by outcome, in plain words."""
    groups = {REPRODUCED: [], REFUTED: [], INCONCLUSIVE: []}
    for label, _, v, *_ in claims:
        note = "" if v.discriminates else " (a null meets it too)"
        groups[v.outcome].append(f"{_NUMBERS.sub('', label)}{note}")
    words = {REPRODUCED: "holds", REFUTED: "fails", INCONCLUSIVE: "undecided"}
    return [f"  {words[k]} -- {'; '.join(items)}" for k, items in groups.items() if items]


def verdict(summaries: dict, *, smoke: bool = False) -> list[str]:
    """One block of claim lines per preset (native variant), what holds and what fails, then DETAILS and the
    reasons; a smoke run says it cannot test the claims."""
    from ...nn import PRESETS

    lines = [SMOKE_NOTE] if smoke else []
    lines.append(f"Each claim of the paper (arXiv:2603.10123; {CITE}) on its own line: "
                 "measured [95% CI]: verdict (docs/step0.md: the verdict rule)")
    details = [DETAILS]
    for (name, variant), s in summaries.items():
        if variant != "native":
            continue
        claims = _preset_claims(name, s, summaries.get((name, "nopos")), PRESETS[name].position == "rope")
        lines.append(f"{name} (L={s['length']}, H={s['depth']}, {s['seeds']} seed(s)):")
        lines += [_line(label, measured, v, paper) for label, measured, v, _, paper in claims]
        lines += _in_short(claims)
        details.append(f"{name}:")
        details += [f"  {label} -> {v.outcome}: {text}" for label, _, v, text, _ in claims]
        if (name, "nopos") not in summaries:
            details.append("  RoPE on vs off: not run (the variant nopos of the same seeds: --variants native,nopos)")
        if s.get("nulls"):
            details.append("  null references (plain Spearman, W1 of the mean profile; rank-corrected, "
                           "bias-corrected): " + "; ".join(
                               f"{n} {fmt(v['spearman'], '.4f')}, {fmt(v['wasserstein'], '.4f')}; "
                               f"{fmt(v.get('spearman_rc', math.nan), '.4f')}, "
                               f"{fmt(v.get('wasserstein_bc', math.nan), '.4f')}" for n, v in s["nulls"].items()))
    return lines + details
