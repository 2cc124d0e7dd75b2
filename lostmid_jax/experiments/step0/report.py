"""Step-0 results: per (preset, variant) profiles, metrics against theory, the verdict.

Shapes: L positions, H depth, S seeds.

For each (preset, variant) and pathway, each seed's profile n_j is normalized
to p_j = n_j / sum n (:mod:`lostmid_jax.analysis.metrics`), and the mean over seeds is compared
with two theory rows (:mod:`lostmid_jax.analysis.theory_fit`):

- "measured": w_j for the per-layer a_l measured on the same units
  (:func:`lostmid_jax.analysis.attention_strength`, averaged over seeds);
- "fitted": w_j for the constant a fitted to the mean total profile
  (least squares on log p with a free scale).

Error bars: the standard error of the mean over seeds; with one seed, the
probe standard error of that seed's estimate (randomized method; 0 for exact).
"""

from __future__ import annotations

import math

import numpy as np

from ...analysis import metrics
from ...analysis.theory_fit import fit_constant_alpha, theory_row

PATHWAYS = ("total", "value", "score")

_LN10 = math.log(10.0)

# The paper's Step-0 claims (arXiv:2603.10123) and the rule that calls each reproduced.
CLAIMS = {
    "spearman": (0.99, "Spearman vs theory >= 0.985 (rounds to >= 0.99)"),
    "wasserstein": (0.02, "Wasserstein-1 vs theory <= 0.025 (rounds to <= 0.02)"),
    "onoff": (0.99, "Spearman RoPE on vs off >= 0.985"),
    "peak_to_trough": (2.0, "log10 peak-to-trough in [1.5, 2.5] (~1e2)"),
}


def _mean_sem(rows: np.ndarray, probe_se: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Mean over seeds [S, L] -> [L] and its standard error (see module docstring)."""
    mean = rows.mean(axis=0)
    if rows.shape[0] >= 2:
        return mean, rows.std(axis=0, ddof=1) / math.sqrt(rows.shape[0])
    return mean, np.zeros_like(mean) if probe_se is None else probe_se


def pathway_summary(units: list[dict], pathway: str) -> dict:
    """Mean normalized profile p [L], its error bar, and the mean raw norms, over seeds."""
    norms = np.stack([u[f"norms_{pathway}"] for u in units])  # [S, L]
    sums = norms.sum(axis=1, keepdims=True)
    p = norms / sums
    probe = None
    if len(units) == 1 and f"stderr_{pathway}" in units[0]:
        probe = units[0][f"stderr_{pathway}"] / sums[0]
        probe = np.where(np.isfinite(probe), probe, 0.0)
    p_mean, p_sem = _mean_sem(p, probe)
    n_mean, n_sem = _mean_sem(norms, None if probe is None else probe * sums[0])
    return dict(p=p_mean, p_sem=p_sem, norms=n_mean, norms_sem=n_sem)


def _log10_ptt(p: np.ndarray) -> float:
    positive = p[p > 0]
    return float(np.log10(positive.max() / positive.min())) if positive.size else math.nan


def summarize_variant(units: list[dict], band: float = 0.1, prior=None) -> dict:
    """Everything reported for one (preset, variant): profiles, theory rows under ``prior``
    (the model's own Step-0 prior, :func:`lostmid_jax.analysis.prior_for`; None: causal), metrics."""
    from ... import theory

    prior = theory.Causal() if prior is None else prior
    paths = {name: pathway_summary(units, name) for name in PATHWAYS if f"norms_{name}" in units[0]}
    p = paths["total"]["p"]
    length = p.size
    alphas = np.stack([u["alphas"] for u in units])  # [S, H]
    a_l = alphas.mean(axis=0)
    depth = a_l.size
    a_fit = fit_constant_alpha(p, depth, prior=prior)
    rows = {"measured": theory_row(length, a_l, prior=prior),
            "fitted": theory_row(length, np.full(depth, a_fit), prior=prior)}
    u = metrics.u_statistics(p, band=band)
    fit = metrics.valley_power_law(p)
    score_fraction = math.nan
    if "score" in paths:
        total = np.stack([x["norms_total"] for x in units])
        score = np.stack([x["norms_score"] for x in units])
        score_fraction = float(np.median(np.divide(score, total, out=np.zeros_like(total), where=total > 0)[:, :-1]))
    out = dict(
        paths=paths, alphas=a_l, alphas_sem=_mean_sem(alphas, None)[1], a_fit=a_fit, theory=rows,
        seeds=len(units), length=length, depth=depth, seconds=float(sum(float(x["seconds"]) for x in units)),
        log10_peak_to_trough=u.log10_peak_to_trough, log10_peak_to_trough_body=_log10_ptt(p[:-1]),
        theory_log10_peak_to_trough=_log10_ptt(rows["measured"]), recency_weight=u.recency_weight,
        primacy_mass=u.primacy_mass, middle_mass=u.middle_mass, valley_x=u.valley_x,
        valley_c=fit.c, valley_r2=fit.r2, score_fraction_median=score_fraction,
        heat=next(((x["heat_layers"], x["heat_probs"]) for x in units if "heat_probs" in x), None),
    )
    for kind, row in rows.items():
        out[f"spearman_{kind}"] = metrics.spearman(p, row)
        out[f"wasserstein_{kind}"] = metrics.wasserstein(p, row)
        out[f"value_spearman_{kind}"] = metrics.spearman(paths["value"]["p"], row) if "value" in paths else math.nan
    return out


def summarize(results: dict, band: float = 0.1, priors: dict | None = None) -> dict:
    """{(preset, variant): summary}, plus each variant's Spearman against the preset's "native".

    ``priors``: {(preset, variant): theory prior} (default: causal for all)."""
    priors = priors or {}
    out = {key: summarize_variant(units, band, priors.get(key)) for key, units in results.items()}
    for (name, variant), s in out.items():
        native = out.get((name, "native"))
        s["spearman_vs_native"] = (metrics.spearman(s["paths"]["total"]["p"], native["paths"]["total"]["p"])
                                   if native is not None and variant != "native" else math.nan)
    return out


def profile_records(summaries: dict) -> list[dict]:
    """Rows of profiles.csv: one per (preset, variant, pathway, j)."""
    records = []
    for (name, variant), s in summaries.items():
        x = metrics.positions(s["length"])
        for pathway, path in s["paths"].items():
            for j in range(s["length"]):
                records.append(dict(
                    preset=name, variant=variant, pathway=pathway, j=j + 1, x=x[j],
                    p_mean=path["p"][j], p_sem=path["p_sem"][j], norm_mean=path["norms"][j],
                    norm_sem=path["norms_sem"][j], theory_measured=s["theory"]["measured"][j],
                    theory_fitted=s["theory"]["fitted"][j]))
    return records


METRIC_COLUMNS = ("seeds", "length", "depth", "a_fit", "spearman_measured", "wasserstein_measured",
                  "spearman_fitted", "wasserstein_fitted", "value_spearman_measured", "spearman_vs_native",
                  "log10_peak_to_trough", "log10_peak_to_trough_body", "theory_log10_peak_to_trough",
                  "recency_weight", "primacy_mass", "middle_mass", "valley_x", "valley_c", "valley_r2",
                  "score_fraction_median", "seconds")


def metric_records(summaries: dict, plans: dict) -> list[dict]:
    """Rows of metrics.csv: one per (preset, variant)."""
    return [dict(preset=name, variant=variant, method=plans[name].method, probes=plans[name].probes,
                 a_mean=float(np.mean(s["alphas"])), **{c: s[c] for c in METRIC_COLUMNS})
            for (name, variant), s in summaries.items()]


def alpha_records(summaries: dict) -> list[dict]:
    """Rows of alphas.csv: measured a_l (mean and SEM over seeds) per layer."""
    return [dict(preset=name, variant=variant, layer=l, a_mean=float(s["alphas"][l]), a_sem=float(s["alphas_sem"][l]))
            for (name, variant), s in summaries.items() for l in range(s["depth"])]
