"""The Step-0 table and verdict, computed from the summaries only.

Each of the paper's claims (arXiv:2603.10123: Spearman 0.99 and
Wasserstein 0.02 against theory, Spearman 0.99 between RoPE on and off,
peak-to-trough ~1e2 at init) is checked on each preset's "native" variant by
the rule in :data:`.report.CLAIMS`, and the line gives the number and its
difference from the paper's. Nothing is rounded toward the paper.
"""

from __future__ import annotations

import math

from .report import CLAIMS


def _num(value, spec=".3f") -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else format(value, spec)


def table(summaries: dict) -> str:
    """Fixed-width table: one row per (preset, variant)."""
    head = (f"{'preset':<12}{'variant':<10}{'S':>3}{'L':>6}{'H':>4}{'mean a_l':>9}{'a_fit':>7}"
            f"{'rho meas':>9}{'W1 meas':>9}{'rho fit':>9}{'W1 fit':>8}{'rho nat':>8}"
            f"{'log10 p/t':>10}{'(j<L)':>7}{'theory':>7}{'score/tot':>10}")
    lines = ["Spearman (rho) and Wasserstein-1 (W1) of the mean normalized total profile vs theory rows with the "
             "measured a_l (meas) and the fitted constant a (fit); rho nat: vs the preset's native variant; "
             "log10 peak-to-trough over all j, over j < L, and of the measured-a_l theory row; "
             "score/tot: median_j<L ||J_score|| / ||J_total||", head, "-" * len(head)]
    for (name, variant), s in summaries.items():
        lines.append(
            f"{name:<12}{variant:<10}{s['seeds']:>3}{s['length']:>6}{s['depth']:>4}{float(s['alphas'].mean()):>9.3f}"
            f"{s['a_fit']:>7.3f}{s['spearman_measured']:>9.3f}{s['wasserstein_measured']:>9.4f}"
            f"{s['spearman_fitted']:>9.3f}{s['wasserstein_fitted']:>8.4f}{_num(s['spearman_vs_native']):>8}"
            f"{_num(s['log10_peak_to_trough'], '.2f'):>10}{_num(s['log10_peak_to_trough_body'], '.2f'):>7}"
            f"{_num(s['theory_log10_peak_to_trough'], '.2f'):>7}{_num(s['score_fraction_median'], '.2e'):>10}")
    return "\n".join(lines)


def _check(claim: str, value: float) -> str:
    target, rule = CLAIMS[claim]
    if value is None or math.isnan(value):
        return "not measured"
    if claim in ("spearman", "onoff"):
        ok, diff = value >= 0.985, f"{value - target:+.3f}"
    elif claim == "wasserstein":
        ok, diff = value <= 0.025, f"{value - target:+.4f}"
    else:
        ok, diff = 1.5 <= value <= 2.5, f"{value - target:+.2f} decades"
    return f"{'REPRODUCED' if ok else 'NOT reproduced'} (paper {target:g}, difference {diff}; rule: {rule})"


def verdict(summaries: dict) -> list[str]:
    """One block of lines per preset, for its native variant."""
    from ...nn import PRESETS

    lines = []
    for (name, variant), s in summaries.items():
        if variant != "native":
            continue
        rope = PRESETS[name].position == "rope"
        off = summaries.get((name, "nopos"))
        onoff = off["spearman_vs_native"] if off else math.nan
        lines += [
            f"{name} (L={s['length']}, H={s['depth']}, {s['seeds']} seed(s)):",
            f"  Spearman vs theory, measured a_l: {s['spearman_measured']:.4f}: {_check('spearman', s['spearman_measured'])}",
            f"  Spearman vs theory, fitted a={s['a_fit']:.3f}: {s['spearman_fitted']:.4f}: {_check('spearman', s['spearman_fitted'])}",
            f"  Wasserstein vs theory, measured a_l: {s['wasserstein_measured']:.4f}: {_check('wasserstein', s['wasserstein_measured'])}",
            f"  Wasserstein vs theory, fitted a: {s['wasserstein_fitted']:.4f}: {_check('wasserstein', s['wasserstein_fitted'])}",
        ]
        label = "RoPE on vs off" if rope else "positions on vs off (learned table; not the paper's RoPE claim)"
        lines.append(f"  {label}: Spearman {_num(onoff, '.4f')}: {_check('onoff', onoff)}")
        lines.append(f"  peak-to-trough: log10 {s['log10_peak_to_trough']:.2f} over all j "
                     f"({_num(s['log10_peak_to_trough_body'], '.2f')} over j < L; theory row {s['theory_log10_peak_to_trough']:.2f}): "
                     f"{_check('peak_to_trough', s['log10_peak_to_trough'])}")
    return lines
