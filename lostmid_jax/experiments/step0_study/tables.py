"""Tables of the Step-0 study (its CSV rows), computed from the units alone.

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
from ...stats.intervals import sem_rows
from ...stats.heldout import fit_rows, heldout_score, split_halves
from ...analysis.theory_variants import VARIANTS, variant_row
from .columns import TARGET


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
