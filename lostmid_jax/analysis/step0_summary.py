"""The Step-0 summary of a set of units (seeds) of one model: mean pathway profiles, theory rows, metrics, 95% CIs.

Shared by the step0, step0_study and pretrained_vs_init experiments (a unit: the arrays of one seed,
``norms_<pathway>`` [L], ``alphas`` [H], optionally ``stderr_<pathway>``, ``heat_layers``, ``heat_probs``, ``seconds``).

Shapes: L positions, H depth, S seeds.

For each (preset, variant) and pathway, each seed's profile n_j is normalized
to p_j = n_j / sum n (:mod:`lostmid_jax.stats.profile_metrics`), and the mean over seeds is compared
with two theory rows (:mod:`lostmid_jax.analysis.theory_fit`):

- "measured": w_j for the per-layer a_l measured on the same units
  (:func:`lostmid_jax.analysis.attention_strength`, averaged over seeds);
- "fitted": w_j for the constant a fitted to the mean total profile
  (least squares on log p with a free scale).

Error bars: the standard error of the mean over seeds; with one seed, the
probe standard error of that seed's estimate (randomized method; 0 for exact).

95% confidence intervals (``n_boot`` > 0 and >= 2 seeds; :func:`lostmid_jax.stats.agreement.agreement`):

- Spearman, Wasserstein-1 and the noise ceiling of each comparison:
  :func:`~lostmid_jax.stats.agreement.agreement` (bootstrap over seeds;
  raw positions and 64 / 16 equal bins of x). The theory rows are held
  fixed, so the fitted-a row's CI is conditional on the fitted a.
- Every statistic of the mean profile (peak-to-trough, U masses, valley fit,
  the measured-a_l theory row's peak-to-trough): the same bootstrap over
  seeds (LOOP_BOOT = 200 replicates for those computed one replicate at a
  time: U masses, valley, score fraction, theory peak-to-trough).
- The fitted constant a: the jackknife over seeds (a +- t SE, one refit per
  left-out seed); a_l and its mean: the t interval over seeds.
- RoPE on vs off: paired by seed (the same weights).

The systematic-misfit statistic is the chi^2 of the log-profile residuals in
units of their per-position standard errors
(:func:`~lostmid_jax.stats.misfit.misfit_test`: relative residuals per seed,
calibrated by flipping the signs of whole seeds). Null references
(:func:`null_references`: a plain decreasing ramp and theory rows at far-apart
constant a) are scored like the theory rows.
"""

from __future__ import annotations

import math

import numpy as np

from ..stats import profile_metrics as metrics
from ..stats.agreement import agreement, bootstrap_interval, bootstrap_weights
from ..stats.intervals import jackknife_interval, sem_rows, t_interval
from ..stats.profile_intervals import LOOP_BOOT, mean_profile_intervals, score_fraction_interval
from ..stats.misfit import misfit_test
from .request import PATHWAYS
from .theory_fit import fit_constant_alpha, theory_row


def _mean_sem(rows: np.ndarray, probe_se: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Mean over seeds [S, L] -> [L] and its standard error (see module docstring)."""
    mean = rows.mean(axis=0)
    if rows.shape[0] >= 2:
        return mean, sem_rows(rows)
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


def summarize_variant(units: list[dict], band: float = 0.1, prior=None, *, n_boot: int = 0, seed: int = 0) -> dict:
    """Everything reported for one (preset, variant): profiles, theory rows under ``prior``
    (the model's own Step-0 prior, :func:`lostmid_jax.analysis.prior_for`; None: causal), metrics;
    with ``n_boot`` > 0 also their 95% CIs (:func:`intervals`)."""
    from .. import theory

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
        score_fraction = metrics.score_fraction_median(np.stack([x["norms_total"] for x in units]),
                                                       np.stack([x["norms_score"] for x in units]))
    out = dict(
        nulls=null_scores(p, null_references(length, depth, prior)),
        paths=paths, alphas=a_l, alphas_sem=_mean_sem(alphas, None)[1], a_fit=a_fit, theory=rows,
        seeds=len(units), length=length, depth=depth, seconds=float(sum(float(x["seconds"]) for x in units)),
        log10_peak_to_trough=u.log10_peak_to_trough, log10_peak_to_trough_body=metrics.log10_peak_to_trough(p[:-1]),
        theory_log10_peak_to_trough=metrics.log10_peak_to_trough(rows["measured"]), recency_weight=u.recency_weight,
        primacy_mass=u.primacy_mass, middle_mass=u.middle_mass, valley_x=u.valley_x,
        valley_c=fit.c, valley_r2=fit.r2, score_fraction_median=score_fraction,
        heat=next(((x["heat_layers"], x["heat_probs"]) for x in units if "heat_probs" in x), None),
    )
    for kind, row in rows.items():
        out[f"spearman_{kind}"] = metrics.spearman(p, row)
        out[f"wasserstein_{kind}"] = metrics.wasserstein(p, row)
        out[f"value_spearman_{kind}"] = metrics.spearman(paths["value"]["p"], row) if "value" in paths else math.nan
    if n_boot > 0:
        out.update(intervals(units, out, prior, band=band, n_boot=n_boot, seed=seed))
    return out


NULL_ALPHAS = (0.05, 0.9)  # far-apart constant a of the null theory rows


def null_references(length: int, depth: int, prior) -> dict[str, np.ndarray]:
    """References every Step-0 claim is reported beside, scored the same way as the theory rows: a plain
    decreasing ramp L, L-1, ..., 1 and the theory rows of constant a = NULL_ALPHAS ([L] each)."""
    out = {"ramp L..1": np.arange(length, 0, -1, dtype=np.float64)}
    for a in NULL_ALPHAS:
        out[f"theory a={a:g}"] = theory_row(length, np.full(depth, a), prior=prior)
    return out


def null_scores(p: np.ndarray, references: dict[str, np.ndarray]) -> dict[str, dict[str, float]]:
    """{name: {"spearman": Spearman(p, ref), "wasserstein": W1(p, ref)}} of the mean profile p [L]."""
    return {name: {"spearman": metrics.spearman(p, ref), "wasserstein": metrics.wasserstein(p, ref)}
            for name, ref in references.items()}


def bin_choices(length: int) -> tuple[int, ...]:
    """The binnings compared: raw positions (B = L), then 64 and 16 equal bins of x where B < L."""
    return (length, *(b for b in BINS if b < length))


BINS = (64, 16)
_LOOP_STATS = metrics.PROFILE_STATISTICS  # bootstrapped one replicate at a time (LOOP_BOOT replicates)


def intervals(units: list[dict], summary: dict, prior, *, band: float = 0.1, n_boot: int = 2000,
              seed: int = 0) -> dict:
    """The 95% CIs of one (preset, variant)'s summary (module docstring); NaN with one seed.

    Returns a dict to merge into the summary: "ci" {statistic: (lo, hi)}, "agreement"
    {(pathway, reference, bins): Agreement}, "misfit" {(reference, bins): Misfit},
    "alphas_ci" ([H] lo, [H] hi).
    """
    from .. import theory

    prior = theory.Causal() if prior is None else prior
    rows = len(units)
    nan2 = (math.nan, math.nan)
    length, depth = summary["length"], summary["depth"]
    norms = {name: np.stack([u[f"norms_{name}"] for u in units]) for name in summary["paths"]}
    alphas = np.stack([u["alphas"] for u in units])  # [S, H]
    agreements, misfits = {}, {}
    boot = n_boot if rows >= 2 else 0
    for pathway in [n for n in ("total", "value") if n in norms]:
        for kind, row in summary["theory"].items():
            for bins in bin_choices(length):
                agreements[(pathway, kind, bins)] = agreement(norms[pathway], row, bins=bins, n_boot=boot, seed=seed)
                if pathway == "total" and rows >= 2:
                    misfits[(kind, bins)] = misfit_test(norms["total"], row, bins=bins, fitted=int(kind == "fitted"))
    ci = {name: nan2 for name in (*_LOOP_STATS, "log10_peak_to_trough", "log10_peak_to_trough_body", "a_fit",
                                  "a_mean", "theory_log10_peak_to_trough", "score_fraction_median")}
    for kind in summary["theory"]:
        total = agreements[("total", kind, length)]
        ci[f"spearman_{kind}"], ci[f"wasserstein_{kind}"] = total.spearman_ci, total.wasserstein_ci
    if ("value", "measured", length) in agreements:
        ci["value_spearman_measured"] = agreements[("value", "measured", length)].spearman_ci
    a_lo, a_hi = t_interval(alphas)
    if rows >= 2:
        p_rows = norms["total"] / norms["total"].sum(axis=1, keepdims=True)
        weights = bootstrap_weights(rows, n_boot, seed)
        ci.update(mean_profile_intervals(p_rows, weights, summary["paths"]["total"]["p"], summary, band=band))
        few = weights[:LOOP_BOOT]  # the replicates of the statistics computed one at a time
        theory_reps = [metrics.log10_peak_to_trough(theory_row(length, w @ alphas, prior=prior)) for w in few]
        ci["theory_log10_peak_to_trough"] = bootstrap_interval(summary["theory_log10_peak_to_trough"], theory_reps,
                                                               rows, bounds=(0.0, math.inf))
        lo, hi = t_interval(alphas.mean(axis=1))
        ci["a_mean"] = (float(lo), float(hi))
        ci["a_fit"] = _jackknife_a_fit(p_rows, depth, summary["a_fit"], prior)
        if "score" in norms:
            ci["score_fraction_median"] = score_fraction_interval(norms["total"], norms["score"],
                                                                  summary["score_fraction_median"],
                                                                  n_boot=min(n_boot, LOOP_BOOT), seed=seed)
    return dict(ci=ci, agreement=agreements, misfit=misfits, alphas_ci=(a_lo, a_hi))


def _jackknife_a_fit(p_rows: np.ndarray, depth: int, a_fit: float, prior) -> tuple[float, float]:
    """a_fit +- t(0.975, S-1) SE_jack, one refit per left-out seed, clipped to [0, 1]."""
    fits = [fit_constant_alpha(np.delete(p_rows, i, axis=0).mean(0), depth, prior=prior)
            for i in range(p_rows.shape[0])]
    return jackknife_interval(a_fit, fits, bounds=(0.0, 1.0))


__all__ = ["BINS", "LOOP_BOOT", "bin_choices", "intervals", "pathway_summary", "summarize_variant"]
