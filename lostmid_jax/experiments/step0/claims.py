"""The Step-0 table and verdict, computed from the summaries only.

Each of the paper's four Step-0 claims (arXiv:2603.10123; docs/theory.md §5:
Spearman 0.99 and Wasserstein-1 0.02 against theory, Spearman 0.99 between
RoPE on and off, peak-to-trough ~1e2 at init) is judged on each preset's
"native" variant by the one verdict rule of :func:`lostmid_jax.stats.verdicts.decide`
(docs/step0.md states it): REPRODUCED (the whole 95% interval meets the
claim), REFUTED (the whole interval misses it, or the profile misses the
reference beyond the seeds' noise: the sign-flip misfit test of
:mod:`lostmid_jax.stats.misfit` overrides), or inconclusive (the interval
straddles the claim, fewer than MIN_ROWS seeds, or nothing measured; with the
seeds that would decide). A Spearman is judged after dividing by its noise
ceiling, never by comparing the ceiling alone with the claim, and is labelled
a monotonicity check: every theory row decreases, so null references (a plain
decreasing ramp, theory rows at a far-apart constant a) are scored the same
way beside it and any null that meets the claim is named.

Nothing is rounded toward the paper.
"""

from __future__ import annotations

import math

import numpy as np

from ...stats.format import fmt, fmt_interval
from ...stats.verdicts import decide
from .report import CLAIMS, metric_ci

SMOKE_NOTE = "(smoke run: too small to test the paper's claims)"
CITE = "docs/theory.md §5"
_THRESHOLD = {"spearman": 0.985, "onoff": 0.985, "wasserstein": 0.025}
_PTT_RANGE = (1.5, 2.5)
_SPEC = {"spearman": ".4f", "onoff": ".4f", "wasserstein": ".4f", "peak_to_trough": ".2f"}


def _misfit_text(misfit) -> str:
    if misfit is None or math.isnan(misfit.chi2):
        return "misfit: not tested"
    p = fmt(misfit.p_value, ".2g")
    limit = "" if misfit.can_reject() else f"; {misfit_seeds_note(misfit)}"
    return f"misfit T/dof = {misfit.reduced:.3g} over {misfit.dof} dof, sign-flip p = {p}{limit}"


def misfit_seeds_note(misfit) -> str:
    """Why a misfit test with too few seeds cannot reject at 5%."""
    return f"with these seeds the smallest sign-flip p is {misfit.min_p:.3g}: no misfit can be detected at 5%"


def judge(claim: str, value: float, ci: tuple[float, float], *, rows: int, ceiling: float | None = None,
          ceiling_ci: tuple[float, float] | None = None, misfit=None, nulls: dict | None = None) -> str:
    """'OUTCOME (reason; misfit; paper number and rule)' for ``claim`` by :func:`~lostmid_jax.stats.verdicts.decide`.

    Args:
      claim: a key of CLAIMS.
      value, ci: the measured value and its 95% interval.
      rows: seeds behind it.
      ceiling, ceiling_ci: the noise ceiling of a Spearman against theory (None: not a correlation with a
        ceiling, e.g. the paired on/off Spearman).
      misfit: the :class:`~lostmid_jax.stats.misfit.Misfit` of the same comparison (None: not run).
      nulls: {name: the same metric for a null reference}.
    """
    target, rule = CLAIMS[claim]
    misfit_p = None if misfit is None or math.isnan(misfit.p_value) else misfit.p_value
    if claim == "peak_to_trough":
        kind = dict(band=_PTT_RANGE)
    else:
        kind = dict(threshold=_THRESHOLD[claim], higher_is_better=claim != "wasserstein")
    v = decide(value, ci, rows=rows, misfit_p=misfit_p, ceiling=ceiling, ceiling_ci=ceiling_ci, nulls=nulls,
               spec=_SPEC[claim], metric=claim if claim in ("spearman", "wasserstein") else None, **kind)
    extra = f"; {_misfit_text(misfit)}" if misfit is not None else ""
    return f"{v.outcome} ({v.reason}{extra}; paper {target:g}; rule: {rule})"


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
    lines.append(f"Each claim of the paper (arXiv:2603.10123; {CITE}): value [95% CI] -> REPRODUCED / REFUTED / "
                 "inconclusive (docs/step0.md: the verdict rule)")
    for (name, variant), s in summaries.items():
        if variant != "native":
            continue
        length, seeds = s["length"], s["seeds"]
        ag = s.get("agreement", {})
        misfit = s.get("misfit", {})
        nulls = s.get("nulls", {})
        rope = PRESETS[name].position == "rope"
        off = summaries.get((name, "nopos"))
        lines.append(f"{name} (L={length}, H={s['depth']}, {seeds} seed(s)):")
        for kind, label in (("measured", "measured a_l"), ("fitted", f"fitted a = {s['a_fit']:.3f} "
                                                                     f"{fmt_interval(*metric_ci(s, 'a_fit'))}")):
            a = ag.get(("total", kind, length))
            ceiling = a.ceiling if a is not None else math.nan
            ceiling_ci = a.ceiling_ci if a is not None else (math.nan, math.nan)
            rho, rho_ci = s[f"spearman_{kind}"], metric_ci(s, f"spearman_{kind}")
            w1, w1_ci = s[f"wasserstein_{kind}"], metric_ci(s, f"wasserstein_{kind}")
            m = misfit.get((kind, length))
            null_rho = {n: v["spearman"] for n, v in nulls.items()}
            null_w1 = {n: v["wasserstein"] for n, v in nulls.items()}
            rho_bc, w1_bc = (a.spearman_bc, a.wasserstein_bc) if a is not None else (math.nan, math.nan)
            lines.append(f"  Spearman vs theory (a monotonicity check), {label}: {rho:.4f} "
                         f"{fmt_interval(*rho_ci, '.4f')} (bias-corrected {fmt(rho_bc, '.4f')}), "
                         f"noise ceiling {fmt(ceiling, '.4f')} "
                         f"{fmt_interval(*ceiling_ci, '.4f')}: "
                         f"{judge('spearman', rho, rho_ci, rows=seeds, ceiling=ceiling, ceiling_ci=ceiling_ci, misfit=m, nulls=null_rho)}")
            lines.append(f"  Wasserstein vs theory, {label}: {w1:.4f} {fmt_interval(*w1_ci, '.4f')} "
                         f"(bias-corrected {fmt(w1_bc, '.4f')}): "
                         f"{judge('wasserstein', w1, w1_ci, rows=seeds, misfit=m, nulls=null_w1)}")
        label = "RoPE on vs off" if rope else "positions on vs off (not RoPE: not the paper's RoPE claim)"
        onoff = off["spearman_vs_native"] if off else math.nan
        onoff_ci = metric_ci(off, "spearman_vs_native") if off else (math.nan, math.nan)
        pair_misfit = off.get("misfit", {}).get(("native", length)) if off else None
        # no noise ceiling here: the pairs share their weights, so their noise is shared, not independent
        lines.append(f"  {label}: Spearman {fmt(onoff, '.4f')} {fmt_interval(*onoff_ci, '.4f')} (paired by seed): "
                     f"{judge('onoff', onoff, onoff_ci, rows=off['seeds'] if off else 0, misfit=pair_misfit)}")
        ptt, ptt_ci = s["log10_peak_to_trough"], metric_ci(s, "log10_peak_to_trough")
        lines.append(f"  peak-to-trough: log10 {ptt:.2f} {fmt_interval(*ptt_ci, '.2f')} over all j "
                     f"({_cell(s, 'log10_peak_to_trough_body', '.2f')}"
                     f" over j < L; theory row {s['theory_log10_peak_to_trough']:.2f} "
                     f"{fmt_interval(*metric_ci(s, 'theory_log10_peak_to_trough'), '.2f')}): "
                     f"{judge('peak_to_trough', ptt, ptt_ci, rows=seeds)}")
        if nulls:
            lines.append("  null references scored the same way (Spearman, W1 vs the mean profile): " + "; ".join(
                f"{n} {fmt(v['spearman'], '.4f')}, {fmt(v['wasserstein'], '.4f')}" for n, v in nulls.items()))
    return lines
