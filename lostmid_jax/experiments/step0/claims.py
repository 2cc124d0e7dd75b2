"""The Step-0 table and verdict, computed from the summaries only.

Each of the paper's four Step-0 claims (arXiv:2603.10123; docs/theory.md §5:
Spearman 0.99 and Wasserstein-1 0.02 against theory, Spearman 0.99 between
RoPE on and off, peak-to-trough ~1e2 at init) is judged on each preset's
"native" variant by the rule in :data:`.report.CLAIMS`, with the 95% CI of
every number beside it, and one of these cases:

- REPRODUCED: the measured value meets the rule;
- NOT reproduced, within measurement noise: the rule is missed, but the CI
  reaches the rule's threshold, or (Spearman claims) the noise ceiling is
  below it, so no reference could reach it with this much noise;
- NOT reproduced, systematic misfit: the CI excludes the threshold and the
  log profile misses the reference by more than its per-position standard
  errors (chi^2 of the log-profile residuals, p < 0.05; the statistic is given);
- NOT reproduced: the CI excludes the threshold but the residuals stay within
  the noise (the statistic is given);
- not testable: one seed (no CI).

Nothing is rounded toward the paper.
"""

from __future__ import annotations

import math

import numpy as np

from ...stats.format import fmt, fmt_interval
from .report import CLAIMS, metric_ci

SMOKE_NOTE = "(smoke run: too small to test the paper's claims)"
CITE = "docs/theory.md §5"
ALPHA = 0.05  # misfit significance level
_THRESHOLD = {"spearman": 0.985, "onoff": 0.985, "wasserstein": 0.025}
_PTT_RANGE = (1.5, 2.5)


def _misfit_text(misfit) -> str:
    if misfit is None or math.isnan(misfit.chi2):
        return "log-profile residuals: no per-position errors"
    p = "< 1e-300" if misfit.p_value < 1e-300 else f"= {misfit.p_value:.2g}"
    return f"log-profile residuals chi^2/dof = {misfit.reduced:.3g} over {misfit.dof} dof, p {p}"


def judge(claim: str, value: float, ci: tuple[float, float], *, ceiling: float = math.nan,
          misfit=None) -> str:
    """The case that holds for ``claim`` (module docstring), with the paper's number and the rule."""
    target, rule = CLAIMS[claim]
    tail = f"paper {target:g}; rule: {rule}"
    if value is None or math.isnan(value):
        return f"not measured ({tail})"
    if claim == "peak_to_trough":
        lo_ok, hi_ok = _PTT_RANGE
        if lo_ok <= value <= hi_ok:
            return f"REPRODUCED ({tail})"
        if math.isnan(ci[0]):
            return f"not testable: one seed, no CI ({tail})"
        if ci[0] <= hi_ok and ci[1] >= lo_ok:
            return f"NOT reproduced, within measurement noise (the CI reaches [{lo_ok}, {hi_ok}]; {tail})"
        return f"NOT reproduced (the CI excludes [{lo_ok}, {hi_ok}], {value - target:+.2f} decades; {tail})"
    threshold = _THRESHOLD[claim]
    higher_is_better = claim != "wasserstein"
    met = value >= threshold if higher_is_better else value <= threshold
    if met:
        return f"REPRODUCED ({tail})"
    if math.isnan(ci[0]):
        return f"not testable: one seed, no CI ({tail})"
    reaches = ci[1] >= threshold if higher_is_better else ci[0] <= threshold
    if reaches:
        return f"NOT reproduced, within measurement noise (the CI reaches {threshold:g}; {tail})"
    if higher_is_better and ceiling < threshold:
        return (f"NOT reproduced, within measurement noise (noise ceiling {ceiling:.3f} < {threshold:g}: "
                f"no reference could reach it with these seeds; {tail})")
    if misfit is not None and misfit.p_value < ALPHA:
        return f"NOT reproduced, systematic misfit ({_misfit_text(misfit)}; {tail})"
    return f"NOT reproduced (the CI excludes {threshold:g}; {_misfit_text(misfit)}; {tail})"


def _cell(s: dict, name: str, spec: str, value=None) -> str:
    value = s[name] if value is None else value
    return f"{fmt(value, spec)} {fmt_interval(*metric_ci(s, name), spec)}"


def _rows(summaries: dict, head: list[tuple[str, int]], cells) -> list[str]:
    header = f"{'preset':<12}{'variant':<10}" + "".join(f"{h:>{w}}" for h, w in head)
    out = [header, "-" * len(header)]
    for (name, variant), s in summaries.items():
        out.append(f"{name:<12}{variant:<10}" + "".join(f"{c:>{w}}" for c, (_, w) in zip(cells(s), head)))
    return out


def table(summaries: dict) -> str:
    """Two fixed-width blocks, one row per (preset, variant) each, 95% CIs in brackets: agreement with
    theory, then the shape of the profile."""
    lines = ["Spearman (rho) and Wasserstein-1 (W1) of the mean normalized total profile vs theory rows with the "
             "measured a_l (meas) and the fitted constant a (fit), 95% bootstrap CIs over seeds (a_fit: "
             "jackknife); ceiling: the noise ceiling of rho; rho nat: vs the preset's native variant (paired by "
             "seed) (docs/theory.md §5)"]

    def agreement_cells(s):
        ag = s.get("agreement", {}).get(("total", "measured", s["length"]))
        return [str(s["seeds"]), str(s["length"]), str(s["depth"]), _cell(s, "a_fit", ".3f"),
                _cell(s, "spearman_measured", ".3f"), _cell(s, "wasserstein_measured", ".4f"),
                _cell(s, "spearman_fitted", ".3f"), _cell(s, "wasserstein_fitted", ".4f"),
                fmt(ag.ceiling if ag is not None else math.nan), _cell(s, "spearman_vs_native", ".3f")]

    lines += _rows(summaries, [("S", 3), ("L", 6), ("H", 4), ("a_fit [95% CI]", 22), ("rho meas", 22),
                               ("W1 meas", 25), ("rho fit", 22), ("W1 fit", 25), ("ceiling", 9),
                               ("rho nat", 22)], agreement_cells)
    lines += ["", "Shape of the profile: mean a_l (t interval over seeds); log10 peak-to-trough over all j, over "
                  "j < L, and of the measured-a_l theory row; score/tot: median_j<L ||J_score|| / ||J_total||"]

    def shape_cells(s):
        return [_cell(s, "a_mean", ".3f", float(np.mean(s["alphas"]))), _cell(s, "log10_peak_to_trough", ".2f"),
                _cell(s, "log10_peak_to_trough_body", ".2f"), _cell(s, "theory_log10_peak_to_trough", ".2f"),
                _cell(s, "score_fraction_median", ".2e")]

    lines += _rows(summaries, [("mean a_l [95% CI]", 24), ("log10 p/t", 20), ("(j<L)", 20), ("theory", 20),
                               ("score/tot", 31)], shape_cells)
    return "\n".join(lines)


def verdict(summaries: dict, *, smoke: bool = False) -> list[str]:
    """One block of lines per preset, for its native variant; a smoke run says it cannot test the claims."""
    from ...nn import PRESETS

    lines = [SMOKE_NOTE] if smoke else []
    lines.append(f"Each claim of the paper (arXiv:2603.10123; {CITE}): value [95% CI] -> case")
    for (name, variant), s in summaries.items():
        if variant != "native":
            continue
        length = s["length"]
        ag = s.get("agreement", {})
        misfit = s.get("misfit", {})
        rope = PRESETS[name].position == "rope"
        off = summaries.get((name, "nopos"))
        lines.append(f"{name} (L={length}, H={s['depth']}, {s['seeds']} seed(s)):")
        for kind, label in (("measured", "measured a_l"), ("fitted", f"fitted a = {s['a_fit']:.3f} "
                                                                     f"{fmt_interval(*metric_ci(s, 'a_fit'))}")):
            a = ag.get(("total", kind, length))
            ceiling = a.ceiling if a is not None else math.nan
            rho, rho_ci = s[f"spearman_{kind}"], metric_ci(s, f"spearman_{kind}")
            w1, w1_ci = s[f"wasserstein_{kind}"], metric_ci(s, f"wasserstein_{kind}")
            m = misfit.get((kind, length))
            lines.append(f"  Spearman vs theory, {label}: {rho:.4f} {fmt_interval(*rho_ci, '.4f')}, noise ceiling "
                         f"{fmt(ceiling, '.4f')} {fmt_interval(*a.ceiling_ci if a else (math.nan,) * 2, '.4f')}: "
                         f"{judge('spearman', rho, rho_ci, ceiling=ceiling, misfit=m)}")
            lines.append(f"  Wasserstein vs theory, {label}: {w1:.4f} {fmt_interval(*w1_ci, '.4f')}: "
                         f"{judge('wasserstein', w1, w1_ci, misfit=m)}")
        label = "RoPE on vs off" if rope else "positions on vs off (not RoPE: not the paper's RoPE claim)"
        onoff = off["spearman_vs_native"] if off else math.nan
        onoff_ci = metric_ci(off, "spearman_vs_native") if off else (math.nan, math.nan)
        pair_misfit = off.get("misfit", {}).get(("native", length)) if off else None
        # no noise ceiling here: the pairs share their weights, so their noise is shared, not independent
        lines.append(f"  {label}: Spearman {fmt(onoff, '.4f')} {fmt_interval(*onoff_ci, '.4f')} (paired by seed): "
                     f"{judge('onoff', onoff, onoff_ci, misfit=pair_misfit)}")
        ptt, ptt_ci = s["log10_peak_to_trough"], metric_ci(s, "log10_peak_to_trough")
        lines.append(f"  peak-to-trough: log10 {ptt:.2f} {fmt_interval(*ptt_ci, '.2f')} over all j "
                     f"({_cell(s, 'log10_peak_to_trough_body', '.2f')}"
                     f" over j < L; theory row {s['theory_log10_peak_to_trough']:.2f} "
                     f"{fmt_interval(*metric_ci(s, 'theory_log10_peak_to_trough'), '.2f')}): "
                     f"{judge('peak_to_trough', ptt, ptt_ci)}")
    return lines
