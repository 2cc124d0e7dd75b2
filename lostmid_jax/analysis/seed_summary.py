"""The summary over seeds of one model's Step-0 units: mean pathway profiles, theory rows, metrics, 95% CIs.

Shared by the step0, step0_study and pretrained_vs_init experiments (a unit: the arrays of one seed,
``norms_<pathway>`` [L], ``alphas`` [H], optionally ``stderr_<pathway>``, ``heat_layers``, ``heat_probs``, ``seconds``).

Shapes: L positions, H depth, S seeds.

For each (preset, variant) and pathway, each seed's profile n_j is normalized
to p_j = n_j / sum n (:mod:`lostmid_jax.stats.profile_metrics`), and the mean over seeds is compared
with three theory rows (:mod:`lostmid_jax.analysis.theory_fit`):

- "measured": w_j for the per-layer a_l measured on the same units
  (:func:`lostmid_jax.analysis.attention_strength`, averaged over seeds);
- "fitted": w_j for the constant a fitted to the mean total profile
  (least squares on log p with a free scale): the log-shape reading of a;
- "w1fit": w_j for the constant a that minimizes the Wasserstein-1 distance
  to the mean total profile (a_w1): the paper's most favourable reading of a
  (the paper does not say how it chose a).

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
- The theory rows' W1 (wasserstein_measured, _fitted, _w1fit): the
  jackknife-t interval with the row rebuilt inside each leave-one-out
  (a refit of a for "fitted" and "w1fit", the left-out mean a_l for
  "measured"), so the interval includes the choice of a; its point is the
  bias-corrected wasserstein_bc_<row>. The fitted constants a_fit and a_w1:
  the same jackknife (a +- t SE); a_l and its mean: the t interval over seeds.
- The judged Spearman (spearman_rc_<row>): the rank-corrected Spearman of
  :func:`~lostmid_jax.stats.agreement.agreement`, conditional on the row
  (a Spearman against a decreasing row barely moves with a).
- RoPE on vs off: paired by seed (the same weights).

The systematic-misfit statistic (:func:`~lostmid_jax.stats.misfit.misfit_test`:
log residuals of each seed's bin masses, studentized per bin, calibrated by
flipping the signs of whole seeds) is the shape claim's own number. Null references
(:func:`null_references`: a plain decreasing ramp and theory rows at far-apart
constant a) are scored like the theory rows.
"""

from __future__ import annotations

import math

import numpy as np

from ..stats import profile_metrics as metrics
from ..stats.agreement import agreement, bootstrap_interval, bootstrap_weights
from ..stats.intervals import jackknife_bias_corrected, jackknife_interval, sem_rows, t_interval
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


def unit_timings(units: list[dict]) -> dict[str, float]:
    """{timing key: its sum over the units} for each of lostmid_jax.runs.units.TIMING_KEYS (NaN where a unit
    lacks it: units measured before the split was recorded)."""
    from ..runs.units import TIMING_KEYS

    return {key: float(sum(float(u[key]) for u in units)) if all(key in u for u in units) else math.nan
            for key in TIMING_KEYS}


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
    a_w1 = fit_constant_alpha(p, depth, objective="wasserstein", prior=prior)
    rows = {"measured": theory_row(length, a_l, prior=prior),
            "fitted": theory_row(length, np.full(depth, a_fit), prior=prior),
            "w1fit": theory_row(length, np.full(depth, a_w1), prior=prior)}
    u = metrics.u_statistics(p, band=band)
    fit = metrics.valley_power_law(p)
    score_fraction = math.nan
    if "score" in paths:
        score_fraction = metrics.score_fraction_median(np.stack([x["norms_total"] for x in units]),
                                                       np.stack([x["norms_score"] for x in units]))
    out = dict(
        nulls=null_scores(p, null_references(length, depth, prior)),
        paths=paths, alphas=a_l, alphas_sem=_mean_sem(alphas, None)[1], a_fit=a_fit, a_w1=a_w1, theory=rows,
        seeds=len(units), length=length, depth=depth, seconds=float(sum(float(x["seconds"]) for x in units)),
        timings=unit_timings(units),
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
        out[f"spearman_rc_{kind}"] = out[f"wasserstein_bc_{kind}"] = math.nan  # with n_boot > 0: intervals()
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
    """{name: {"spearman": Spearman(p, ref), "wasserstein": W1(p, ref), "spearman_rc": NaN, "wasserstein_bc":
    NaN}} of the mean profile p [L] (the last two, the points a verdict judges, need seeds: :func:`intervals`)."""
    return {name: {"spearman": metrics.spearman(p, ref), "wasserstein": metrics.wasserstein(p, ref),
                   "spearman_rc": math.nan, "wasserstein_bc": math.nan} for name, ref in references.items()}


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
                    misfits[(kind, bins)] = misfit_test(norms["total"], row, bins=bins, fitted=int(kind != "measured"))
    ci = {name: nan2 for name in (*_LOOP_STATS, "log10_peak_to_trough", "log10_peak_to_trough_body", "a_fit",
                                  "a_w1", "a_mean", "theory_log10_peak_to_trough", "score_fraction_median")}
    points = {}
    for kind in summary["theory"]:
        total = agreements[("total", kind, length)]
        ci[f"spearman_{kind}"], ci[f"wasserstein_{kind}"] = total.spearman_ci, total.wasserstein_ci
        ci[f"spearman_rc_{kind}"] = total.spearman_rc_ci
        points[f"spearman_rc_{kind}"], points[f"wasserstein_bc_{kind}"] = total.spearman_rc, total.wasserstein_bc
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
        for kind, refit in _refits(p_rows, alphas, depth, prior).items():
            a_ci, w1_bc, w1_ci = _refit_jackknife(summary, kind, p_rows, refit, length, prior)
            points[f"wasserstein_bc_{kind}"], ci[f"wasserstein_{kind}"] = w1_bc, w1_ci
            if a_ci is not None:
                ci[_A_NAME[kind]] = a_ci
        if "score" in norms:
            ci["score_fraction_median"] = score_fraction_interval(norms["total"], norms["score"],
                                                                  summary["score_fraction_median"],
                                                                  n_boot=min(n_boot, LOOP_BOOT), seed=seed)
    refs = null_references(length, depth, prior)
    nulls = {name: {**scores, **_null_points(norms["total"], refs[name], boot, seed)}
             for name, scores in summary["nulls"].items()}
    return dict(ci=ci, agreement=agreements, misfit=misfits, alphas_ci=(a_lo, a_hi), nulls=nulls, **points)


def _null_points(norms: np.ndarray, reference: np.ndarray, n_boot: int, seed: int) -> dict[str, float]:
    """{"spearman_rc", "wasserstein_bc"} of the rows norms [S, L] against a null reference [L]: the points a
    verdict judges, by the same estimators as the theory rows'."""
    ag = agreement(norms, reference, n_boot=n_boot, seed=seed, splits=1)  # its noise ceiling is not used
    return {"spearman_rc": ag.spearman_rc, "wasserstein_bc": ag.wasserstein_bc}


_A_NAME = {"fitted": "a_fit", "w1fit": "a_w1"}


def _refits(p_rows: np.ndarray, alphas: np.ndarray, depth: int, prior) -> dict:
    """{row kind: refit(left-out mean profile [L], left-out seed i) -> (a schedule [H], the constant a or None)}:
    how each theory row is rebuilt inside a leave-one-out (module docstring)."""
    def fitted(objective):
        def refit(mean, i):
            a = fit_constant_alpha(mean, depth, objective=objective, prior=prior)
            return np.full(depth, a), a
        return refit

    def measured(mean, i):
        return np.delete(alphas, i, axis=0).mean(0), None

    return {"measured": measured, "fitted": fitted("log_lsq"), "w1fit": fitted("wasserstein")}


def _refit_jackknife(summary: dict, kind: str, p_rows: np.ndarray, refit, length: int, prior):
    """(a interval or None, wasserstein_bc, its jackknife-t interval) of theory row ``kind`` with the row
    rebuilt by ``refit`` in each leave-one-out (:func:`~lostmid_jax.stats.intervals.jackknife_interval`)."""
    a_loo, w1_loo = [], []
    for i in range(p_rows.shape[0]):
        mean = np.delete(p_rows, i, axis=0).mean(0)
        schedule, a = refit(mean, i)
        a_loo.append(a)
        w1_loo.append(metrics.wasserstein(mean, theory_row(length, schedule, prior=prior)))
    w1_bc = max(jackknife_bias_corrected(summary[f"wasserstein_{kind}"], w1_loo), 0.0)
    w1_ci = jackknife_interval(w1_bc, w1_loo, bounds=(0.0, 1.0))
    a_ci = None if a_loo[0] is None else jackknife_interval(summary[_A_NAME[kind]], a_loo, bounds=(0.0, 1.0))
    return a_ci, w1_bc, w1_ci


__all__ = ["BINS", "LOOP_BOOT", "bin_choices", "intervals", "pathway_summary", "summarize_variant"]
