"""Tables of the Step-0 study, computed from the units alone, and the summary table and verdict.

Shapes: S seeds, L positions, H layers, B bins.

Per preset: split = stats.heldout.split_halves(S, seed=split_seed). Each
theory variant (:mod:`lostmid_jax.analysis.theory_variants`) is computed from
the fitting half only (its profiles, a_l or g_l^2) and scored on the held-out
half (:func:`lostmid_jax.stats.heldout.heldout_score`), at raw positions
and at each binning B < L. The convergence rows score the same references on
the first n held-out seeds; the ceiling rows give the noise ceiling of the
first n of all S seeds (no reference involved) and the seeds a ceiling of
0.99 would need (Spearman-Brown projection of the single-seed reliability).
"""

from __future__ import annotations

import math

import numpy as np

from ...stats import profile_metrics as metrics
from ...stats.agreement import agreement, bin_matrix, noise_ceiling, row_bootstrap_ci
from ...stats.columns import INTERVALS, agreement_meanings, interval_meanings, meaning, misfit_meanings
from ...stats.format import fmt_ci
from ...stats.intervals import sem_rows
from ...stats.heldout import fit_rows, heldout_score, split_halves
from ...analysis.theory_variants import DESCRIPTIONS, VARIANTS, ZERO_PARAMETER, variant_row

TARGET = 0.99  # the paper's Spearman (arXiv:2603.10123)

_HELD = "the held-out mean profile"


_BINS = {"bins": ("number of points compared: equal bins of x = j/L (L for raw positions)", ""),
         "raw": ("True for raw positions (no binning)", "")}

COLUMNS = {
    "variants.csv": {
        "preset": ("nn preset", ""), "variant": ("theory variant (analysis.theory_variants)", ""),
        **_BINS, "fit_seeds": ("seeds used to fit or measure the variant (the fitting half)", ""),
        "score_seeds": ("held-out seeds scored", ""),
        **agreement_meanings(profile=_HELD, reference="the variant's theory row"),
        **interval_meanings({"rms_log": meaning("rms_log", profile=_HELD, reference="the variant's theory row")},
                            INTERVALS["rms_log"]),
        **misfit_meanings(profile=_HELD, reference="the variant's theory row",
                          note="empty with < 4 held-out seeds; runs before this column wrote misfit_chi2, the mean "
                               "squared centred residual in standard errors"),
        "within_ceiling": ("True when the Spearman's CI reaches the ceiling's CI (spearman_hi >= ceiling_lo; the "
                           "point values where a CI is missing)", ""),
        "a_fit": ("the fitted constant a (variant fitted_a; empty otherwise)", ""),
        "mlp_gram": ("for the position-wise variants: True when their MLP model is the measured Gram of the "
                     "weight-shared MLP Jacobians, False when it is the diagonal one (positions independent: the unit "
                     "was too long to store the Gram, measure.GRAM_LIMIT); empty for the other variants", ""),
    },
    "convergence.csv": {
        "preset": ("nn preset", ""), "variant": ("theory variant", ""), **_BINS,
        "seeds": ("n, the first n held-out seeds averaged", ""),
        **agreement_meanings(profile=_HELD, reference="the variant's theory row (fitted on the other half)"),
    },
    "ceiling.csv": {
        "preset": ("nn preset", ""), **_BINS, "seeds": ("n, the first n of all seeds", ""),
        **interval_meanings({"ceiling": meaning("ceiling", profile="the n-seed mean")}, INTERVALS["ceiling"]),
        "reliability": meaning("reliability", profile="the n-seed mean"),
        "seeds_for_target": ("seeds whose mean would reach a ceiling of 0.99 (Spearman-Brown projection "
                             "from this n; empty where the reliability is not positive)", ""),
    },
    "profiles.csv": {
        "preset": ("nn preset", ""), "j": ("input position, 1..L", "position"), "x": ("j/L", ""),
        "p_mean": ("mean over the held-out seeds of the normalized profile p_j = n_j / sum n", ""),
        "p_sem": ("standard error of p_mean over the held-out seeds", ""),
        **{f"theory_{v}": (f"normalized theory row of variant {v} (from the fitting half)", "") for v in VARIANTS},
    },
    "layers.csv": {
        "preset": ("nn preset (with the width for the noise grid)", ""), "width": ("model width D", ""),
        "layer": ("layer, 1..H", ""),
        "a_measured": ("measured a_l, mean over seeds", ""), "a_measured_sem": ("SEM of a_measured", ""),
        "gain_sq": ("branch gain g_l^2 = ||G_l||_F^2 / D, mean over seeds", ""), "gain_sq_sem": ("SEM of gain_sq", ""),
        "a_jacobian": ("g_l / (1 + g_l) from gain_sq", ""),
        "kl": ("mean KL(attention row || uniform over allowed keys), mean over seeds", "nats"),
        "kl_sem": ("SEM of kl", "nats"),
        "spread": ("mean relative spread std_j(i P_ij) of the attention weights, mean over seeds", ""),
        "spread_sem": ("SEM of spread", ""),
        "max_ratio": ("mean of max_j i P_ij (1 when uniform), mean over seeds", ""),
    },
    "noise.csv": {
        "preset": ("nn preset whose width is varied", ""), "width": ("model width D", ""),
        "length": ("L", "tokens"), "seeds": ("n, seeds averaged", ""),
        "rel_noise": ("per-position relative noise of the n-seed mean: median over j < L of "
                      "std_s(p_sj) / mean_s(p_sj) / sqrt(n)", ""),
        "rel_noise_lo": ("lower end of the 95% bootstrap CI (over seeds) of rel_noise", ""),
        "rel_noise_hi": ("upper end of the 95% bootstrap CI (over seeds) of rel_noise", ""),
        "kl_mean": ("KL from uniform attention, mean over layers and seeds", "nats"),
        "ceiling": meaning("ceiling", profile="the mean of all seeds at this width"),
    },
}
"""CSV file -> column -> (meaning, unit)."""


def _stack(units: list[dict], key: str) -> np.ndarray:
    return np.stack([np.asarray(u[key], np.float64) for u in units])


def _binnings(cfg, length: int) -> list[int | None]:
    return [None] + sorted({b for b in cfg.bins if 2 <= b < length}, reverse=True)


def _bin_fields(bins, length: int) -> dict:
    return {"bins": length if bins is None else bins, "raw": bins is None}


def _seeds_for(reliability: float, rows: int, target: float = TARGET) -> float:
    """Rows needed for ceiling ``target``: R_1 = R / (n - (n-1) R), n* = T (1 - R_1) / (R_1 (1 - T)), T = target^2."""
    if not (math.isfinite(reliability) and 0 < reliability < 1):
        return math.inf if math.isfinite(reliability) and reliability <= 0 else (1.0 if reliability >= 1 else math.nan)
    r1 = reliability / (rows - (rows - 1) * reliability)
    t = target * target
    return float(t * (1 - r1) / (r1 * (1 - t)))


def preset_tables(cfg, preset: str, units: list[dict]) -> dict[str, list[dict]]:
    """variants, convergence, ceiling, profiles rows of one preset."""
    profiles = _stack(units, "norms")
    seeds, length = profiles.shape
    data = {"alphas": _stack(units, "alphas"), "gains_sq": _stack(units, "gains_sq"),
            "gains_key": _stack(units, "gains_key"), "mlp_gains": _stack(units, "mlp_gains")}
    if all("mlp_gram" in u for u in units):  # else the position-wise variants use the diagonal k_{l,i}^2
        data["mlp_gram"] = _stack(units, "mlp_gram")
    split = split_halves(seeds, seed=cfg.split_seed)
    score_idx = np.asarray(split.score)
    out = {"variants": [], "convergence": [], "ceiling": [], "profiles": []}
    rows_of = {}
    fit_p, fit_d = fit_rows(profiles, data, split)
    counts = sorted({n for n in cfg.seed_counts if n < len(score_idx)} | {len(score_idx)})
    for variant in VARIANTS:
        ref, params = variant_row(variant, length, profiles=fit_p, alphas=fit_d["alphas"], gains_sq=fit_d["gains_sq"],
                                  gains_key=fit_d["gains_key"], mlp_gains=fit_d["mlp_gains"],
                                  mlp_gram=fit_d.get("mlp_gram"))
        rows_of[variant] = ref / ref.sum()
        for bins in _binnings(cfg, length):
            # the reference of the same fitting rows, computed once above (the predictor would refit it)
            s = heldout_score(profiles, data, lambda *_, ref=ref: ref, split=split, bins=bins,
                              n_boot=cfg.n_boot, seed=cfg.split_seed)
            a = s.agreement
            out["variants"].append({"preset": preset, "variant": variant, **_bin_fields(bins, length),
                                    "fit_seeds": len(split.fit), "score_seeds": len(split.score), **s.columns(),
                                    "within_ceiling": _within(a),
                                    "a_fit": params.get("a_fit"),
                                    "mlp_gram": "mlp_gram" in data if variant.endswith("positionwise") else None})
            for n in counts:
                # all held-out seeds: the agreement heldout_score just computed (same rows, reference and seed)
                ag = a if n == len(score_idx) else agreement(profiles[score_idx[:n]], ref, bins=bins,
                                                             n_boot=cfg.n_boot if n >= 2 else 0, seed=cfg.split_seed)
                out["convergence"].append({"preset": preset, "variant": variant, **_bin_fields(bins, length),
                                           "seeds": n, **ag.columns()})
    normalized = profiles / profiles.sum(axis=1, keepdims=True)
    for bins in _binnings(cfg, length):
        p = normalized if bins is None else normalized @ bin_matrix(length, bins)
        for n in sorted({n for n in cfg.seed_counts if 2 <= n < seeds} | {seeds}):
            c, (lo, hi), rel = noise_ceiling(p[:n], seed=cfg.split_seed + 1)
            out["ceiling"].append({"preset": preset, **_bin_fields(bins, length), "seeds": n, "ceiling": c,
                                   "ceiling_lo": lo, "ceiling_hi": hi, "reliability": rel,
                                   "seeds_for_target": _finite(_seeds_for(rel, n))})
    held = profiles[score_idx] / profiles[score_idx].sum(axis=1, keepdims=True)
    mean, sem = held.mean(axis=0), sem_rows(held)
    x = metrics.positions(length)
    for j in range(length):
        out["profiles"].append({"preset": preset, "j": j + 1, "x": float(x[j]), "p_mean": mean[j], "p_sem": sem[j],
                                **{f"theory_{v}": rows_of[v][j] for v in VARIANTS}})
    return out


def _within(a) -> bool:
    """The Spearman's CI (or the point, without one) reaches the ceiling's CI (or the ceiling, without one)."""
    top = a.spearman_ci[1] if math.isfinite(a.spearman_ci[1]) else a.spearman
    floor = a.ceiling_ci[0] if math.isfinite(a.ceiling_ci[0]) else a.ceiling
    return bool(top >= floor)


def _finite(value: float):
    return value if math.isfinite(value) else None


def layer_rows(label: str, width: int, units: list[dict]) -> list[dict]:
    """layers.csv rows: per-layer means and SEMs over seeds."""
    def ms(key):
        v = _stack(units, key)
        return v.mean(axis=0), sem_rows(v)

    (a, a_se), (g2, g2_se), (kl, kl_se), (sp, sp_se) = ms("alphas"), ms("gains_sq"), ms("kl"), ms("spread")
    mx = _stack(units, "max_ratio").mean(axis=0)
    g = np.sqrt(g2)
    return [{"preset": label, "width": width, "layer": l + 1, "a_measured": a[l], "a_measured_sem": a_se[l],
             "gain_sq": g2[l], "gain_sq_sem": g2_se[l], "a_jacobian": g[l] / (1 + g[l]), "kl": kl[l],
             "kl_sem": kl_se[l], "spread": sp[l], "spread_sem": sp_se[l], "max_ratio": mx[l]} for l in range(a.size)]


def _rel_noise(moments: tuple[np.ndarray, np.ndarray], rows: int, n: int) -> float:
    """median_{j<L} sqrt(var_j) / mean_j / sqrt(n) from the first two moments of p over seeds."""
    m1, m2 = moments
    var = np.maximum(m2 - m1 * m1, 0.0) * rows / (rows - 1)
    return float(np.median(np.sqrt(var[:-1]) / m1[:-1]) / math.sqrt(n))


def noise_rows(cfg, noise: dict) -> list[dict]:
    """noise.csv rows: relative per-position noise of the n-seed mean at each width."""
    out = []
    for width, units in sorted(noise.items()):
        p = _stack(units, "norms")
        p = p / p.sum(axis=1, keepdims=True)
        rows = p.shape[0]
        ceiling = noise_ceiling(p, seed=cfg.split_seed + 1)[0]
        kl = float(_stack(units, "kl").mean())
        for n in sorted({n for n in cfg.seed_counts if n <= rows} | {1, rows}):
            stat = lambda m, n=n: _rel_noise(m, rows, n)  # noqa: E731
            value = stat((p.mean(0), (p * p).mean(0)))
            lo, hi = row_bootstrap_ci((p, p * p), stat, n_boot=cfg.n_boot, seed=cfg.split_seed, bounds=(0.0, math.inf))
            out.append({"preset": cfg.noise_preset, "width": width, "length": cfg.noise_length, "seeds": n,
                        "rel_noise": value, "rel_noise_lo": lo, "rel_noise_hi": hi, "kl_mean": kl, "ceiling": ceiling})
    return out


def tables(cfg, units: dict, noise: dict) -> dict[str, list[dict]]:
    """{table stem: rows} of every CSV (see :data:`COLUMNS`)."""
    from ...nn import PRESETS

    out = {k: [] for k in ("variants", "convergence", "ceiling", "profiles", "layers", "noise")}
    for preset, us in units.items():
        for key, rows in preset_tables(cfg, preset, us).items():
            out[key] += rows
        out["layers"] += layer_rows(preset, PRESETS[preset].width, us)
    for width, us in sorted(noise.items()):
        out["layers"] += layer_rows(f"{cfg.noise_preset}@{width}", width, us)
    out["noise"] = noise_rows(cfg, noise)
    return out


# ----------------------------------------------------------------- summary and verdict
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
