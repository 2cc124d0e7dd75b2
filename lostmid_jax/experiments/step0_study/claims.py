"""What the Step-0 study concludes: the summary table (table.txt) and the verdict (verdict.txt), read from its
tables."""

from __future__ import annotations

import math

import numpy as np

from ...stats.format import fmt_ci
from ...analysis.theory_variants import DESCRIPTIONS, VARIANTS, ZERO_PARAMETER
from .columns import TARGET


def _get(row, key):
    v = row.get(key)
    return math.nan if v is None else float(v)


def _centred(row, name: str) -> float:
    """The bias-corrected point {name}_bc its interval is centred on (the plain {name} in rows without it), so
    a printed point lies inside its printed interval."""
    bc = _get(row, f"{name}_bc")
    return bc if math.isfinite(bc) else _get(row, name)


def summary_table(cfg, tabs: dict) -> str:
    """One line per (preset, variant, binning): held-out Spearman, W1, rms log error with 95% CIs, and the ceiling."""
    w = max(len(v) for v in VARIANTS) + 2
    head = (f"{'preset':<11}{'variant':<{w}}{'bins':>5}  {'Spearman [95% CI]':<24}{'W1 [95% CI]':<27}"
            f"{'rms log [95% CI]':<24}{'ceiling [95% CI]':<24}")
    lines = ["Theory variants scored on held-out seeds (fit on the other half); ceiling: the best Spearman "
             "the held-out noise allows", head, "-" * len(head)]
    for r in tabs["variants"]:
        g = lambda k: _get(r, k)  # noqa: E731
        bins = "raw" if r["raw"] else str(r["bins"])
        lines.append(f"{r['preset']:<11}{r['variant']:<{w}}{bins:>5}  "
                     f"{fmt_ci(_centred(r, 'spearman'), g('spearman_lo'), g('spearman_hi')):<24}"
                     f"{fmt_ci(_centred(r, 'wasserstein'), g('wasserstein_lo'), g('wasserstein_hi'), '.4f'):<27}"
                     f"{fmt_ci(g('rms_log'), g('rms_log_lo'), g('rms_log_hi')):<24}"
                     f"{fmt_ci(g('ceiling'), g('ceiling_lo'), g('ceiling_hi')):<24}")
    return "\n".join(lines)


def winner(rows: list[dict]) -> dict:
    """The variant row with the lowest held-out Wasserstein-1 (ties: the higher Spearman). The Spearman
    alone saturates near 1 for every variant of a monotone profile; W1 and the rms log error tell them apart."""
    return min(rows, key=lambda r: (round(_get(r, "wasserstein"), 6), -_get(r, "spearman")))


def verdict_lines(cfg, tabs: dict) -> list[str]:
    """Plain lines: the winning variant per preset and binning, convergence, the noise sources."""
    smoke = " (smoke run: too small to test the paper's claims)" if _is_smoke(cfg) else ""
    lines = []
    for preset in dict.fromkeys(r["preset"] for r in tabs["variants"]):
        rows = [r for r in tabs["variants"] if r["preset"] == preset]
        if any(r.get("mlp_gram") is False for r in rows):
            lines.append(f"{preset}: the position-wise variants use the diagonal MLP model (positions independent), "
                         "which misses weight-shared MLPs by 20-30% (docs/step0.md): the Gram was too large to store "
                         "at this length")
        raw = [r for r in rows if r["raw"]]
        best = winner(raw)
        g = lambda r, k: _get(r, k)  # noqa: E731
        lines.append(
            f"{preset}{smoke}: on {best['score_seeds']} held-out seeds (raw positions) the closest theory is "
            f"{best['variant']} ({DESCRIPTIONS[best['variant']]}): {_scores(best)}; noise ceiling "
            f"{fmt_ci(g(best, 'ceiling'), g(best, 'ceiling_lo'), g(best, 'ceiling_hi'))}: Spearman "
            + ("within the measurement noise." if best["within_ceiling"] else "below the noise ceiling."))
        zero = winner([r for r in raw if r["variant"] in ZERO_PARAMETER])
        if zero is not best:
            lines.append(f"  best zero-parameter prediction: {zero['variant']} ({DESCRIPTIONS[zero['variant']]}): {_scores(zero)}.")
        others = "; ".join(f"{r['variant']}: {_scores(r)}" for r in raw if r is not best and r is not zero)
        lines.append(f"  the others: {others}.")
        for r in rows:
            if not r["raw"] and r["variant"] == best["variant"]:
                lines.append(f"  {r['bins']} bins: Spearman {fmt_ci(_centred(r, 'spearman'), g(r, 'spearman_lo'), g(r, 'spearman_hi'))}, "
                             f"W1 {fmt_ci(_centred(r, 'wasserstein'), g(r, 'wasserstein_lo'), g(r, 'wasserstein_hi'), '.4f')}, "
                             f"ceiling {fmt_ci(g(r, 'ceiling'), g(r, 'ceiling_lo'), g(r, 'ceiling_hi'))}.")
        lines.append("  " + _convergence_line(tabs, preset, best["variant"]))
    lines += _noise_lines(cfg, tabs)
    return lines


def _scores(r: dict) -> str:
    g = lambda k: _get(r, k)  # noqa: E731
    return (f"Spearman {fmt_ci(_centred(r, 'spearman'), g('spearman_lo'), g('spearman_hi'))}, "
            f"W1 {fmt_ci(_centred(r, 'wasserstein'), g('wasserstein_lo'), g('wasserstein_hi'), '.4f')}, "
            f"rms log error {fmt_ci(g('rms_log'), g('rms_log_lo'), g('rms_log_hi'))}"
            + _misfit_text(r))


def _misfit_text(r: dict) -> str:
    """', chi2/dof X over N dof' (', misfit chi2 X' for a run that wrote the old misfit_chi2 column), or ''."""
    if "chi2_dof" not in r and "misfit_chi2" in r:
        old = _get(r, "misfit_chi2")
        return f", misfit chi2 {old:.3g}" if math.isfinite(old) else ""
    value = _get(r, "chi2_dof")
    return f", chi2/dof {value:.3g} over {int(_get(r, 'dof'))} dof" if math.isfinite(value) else ""


def _convergence_line(tabs: dict, preset: str, variant: str) -> str:
    conv = [r for r in tabs["convergence"] if r["preset"] == preset and r["variant"] == variant]
    reach = [r for r in conv if _get(r, "spearman") >= TARGET]
    ceil = [r for r in tabs["ceiling"] if r["preset"] == preset]
    text = "convergence: "
    if reach:
        r = min(reach, key=lambda r: (r["seeds"], -r["bins"]))
        text += (f"Spearman >= {TARGET} first with {r['seeds']} held-out seed(s) at "
                 f"{'raw positions' if r['raw'] else str(r['bins']) + ' bins'}")
    else:
        top = max(conv, key=lambda r: _get(r, "spearman"))
        text += (f"no held-out seed count or binning reaches {TARGET} (best {top['spearman']:.3f} with "
                 f"{top['seeds']} seeds, {'raw' if top['raw'] else str(top['bins']) + ' bins'})")
    raw_ceil = [r for r in ceil if r["raw"]]
    if raw_ceil:
        r = max(raw_ceil, key=lambda r: r["seeds"])
        need = r.get("seeds_for_target")
        text += (f"; the raw-position ceiling of all {r['seeds']} seeds is "
                 f"{fmt_ci(_get(r, 'ceiling'), _get(r, 'ceiling_lo'), _get(r, 'ceiling_hi'))}")
        if _get(r, "ceiling") >= TARGET:
            text += f" (above {TARGET}: the noise allows the paper's number)"
        elif need is not None and math.isfinite(need):
            text += f", and a ceiling of {TARGET} would need about {math.ceil(need)} seeds (Spearman-Brown projection)"
    return text + "."


def _noise_lines(cfg, tabs: dict) -> list[str]:
    lines = []
    for preset in dict.fromkeys(r["preset"] for r in tabs["layers"]):
        rows = [r for r in tabs["layers"] if r["preset"] == preset]
        kl = [r["kl"] for r in rows]
        lines.append(f"attention at init, {preset}: KL(row || uniform) {min(kl):.2e}..{max(kl):.2e} nats over "
                     f"layers, relative weight spread {min(r['spread'] for r in rows):.3f}.."
                     f"{max(r['spread'] for r in rows):.3f}; g_l {math.sqrt(rows[0]['gain_sq']):.2f} (layer 1) .. "
                     f"{math.sqrt(rows[-1]['gain_sq']):.2f} (layer {rows[-1]['layer']}), measured a_l "
                     f"{rows[0]['a_measured']:.2f} .. {rows[-1]['a_measured']:.2f}.")
    single = [r for r in tabs["noise"] if r["seeds"] == 1]
    if len(single) >= 2:
        w = np.log([r["width"] for r in single])
        v = np.log([r["rel_noise"] for r in single])
        slope = float(np.polyfit(w, v, 1)[0])
        parts = ", ".join(f"D={r['width']}: {fmt_ci(r['rel_noise'], r['rel_noise_lo'], r['rel_noise_hi'])}" for r in single)
        lines.append(f"per-position noise of one seed's profile (median relative SD, {cfg.noise_preset}, "
                     f"L={cfg.noise_length}): {parts}; it scales like D^{slope:.2f} with width and like n^-1/2 "
                     f"with the seeds averaged.")
    return lines


def _is_smoke(cfg) -> bool:
    return all(p.length <= 64 for p in cfg.plans())
