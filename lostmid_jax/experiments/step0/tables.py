"""Step-0 results: per (preset, variant) summaries and the CSV rows.

The summary of one (preset, variant) and its 95% CIs are the shared Step-0
summary (:mod:`lostmid_jax.analysis.seed_summary`); :func:`summarize` adds
each variant's comparison with the preset's native one (RoPE on vs off:
paired by seed, the same weights).
"""

from __future__ import annotations

import math

import numpy as np

from ...stats import profile_metrics as metrics
from ...stats.agreement import agreement
from ...stats.misfit import misfit_columns, misfit_test
from ...analysis.request import PATHWAYS
from ...analysis.seed_summary import (BINS, LOOP_BOOT, bin_choices, intervals, pathway_summary,  # noqa: F401
                                      summarize_variant)
from ...analysis.measured_prior import content_records, measured_content_prior

_LN10 = math.log(10.0)


# The paper's Step-0 claims (arXiv:2603.10123): its number for each. Each is judged at that number as stated
# (THRESHOLDS), in the rule, the verdict lines, the tables and docs/step0.md; the peak-to-trough "about 1e2"
# in the band PEAK_TO_TROUGH_BAND of log10.
CLAIMS = {"spearman": 0.99, "wasserstein": 0.02, "onoff": 0.99, "peak_to_trough": 2.0}
THRESHOLDS = {claim: CLAIMS[claim] for claim in ("spearman", "onoff", "wasserstein")}
PEAK_TO_TROUGH_BAND = (1.5, 2.5)


def summarize(results: dict, band: float = 0.1, priors: dict | None = None, *, n_boot: int = 0,
              seed: int = 0) -> dict:
    """{(preset, variant): summary}, plus each variant's Spearman against the preset's "native"
    (with ``n_boot`` > 0: its agreement, paired by seed, and the paired misfit test).

    ``priors``: {(preset, variant): theory prior} (default: causal for all)."""
    import time

    priors = priors or {}
    out = {}
    for key in results:
        start = time.perf_counter()
        out[key] = summarize_variant(results[key], band, priors.get(key), n_boot=n_boot, seed=seed)
        out[key]["timings"]["summary_seconds"] = time.perf_counter() - start
    for (name, variant), s in out.items():
        start = time.perf_counter()
        native = out.get((name, "native"))
        s["spearman_vs_native"] = (metrics.spearman(s["paths"]["total"]["p"], native["paths"]["total"]["p"])
                                   if native is not None and variant != "native" else math.nan)
        if n_boot > 0 and native is not None and variant != "native":
            on = np.stack([u["norms_total"] for u in results[(name, "native")]])
            off = np.stack([u["norms_total"] for u in results[(name, variant)]])
            paired = on.shape == off.shape
            ref = off if paired else off.mean(0)
            boot = n_boot if on.shape[0] >= 2 else 0
            for bins in bin_choices(s["length"]):
                s["agreement"][("total", "native", bins)] = agreement(on, ref, bins=bins, n_boot=boot, seed=seed)
                if paired and on.shape[0] >= 2:
                    s["misfit"][("native", bins)] = misfit_test(on, ref, bins=bins)
            pair = s["agreement"][("total", "native", s["length"])]
            s["ci"]["spearman_vs_native"], s["ci"]["wasserstein_vs_native"] = pair.spearman_ci, pair.wasserstein_ci
        s["timings"]["summary_seconds"] += time.perf_counter() - start
    return out


def null_records(summaries: dict) -> list[dict]:
    """Rows of nulls.csv: one per (preset, variant, null reference) (:func:`~lostmid_jax.analysis.seed_summary.null_references`)."""
    return [dict(preset=name, variant=variant, reference=ref, **scores)
            for (name, variant), s in summaries.items() for ref, scores in s.get("nulls", {}).items()]


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
                    theory_fitted=s["theory"]["fitted"][j], theory_w1fit=s["theory"]["w1fit"][j]))
    return records


METRIC_COLUMNS = ("seeds", "length", "depth", "a_fit", "spearman_measured", "wasserstein_measured",
                  "spearman_fitted", "wasserstein_fitted", "a_w1", "spearman_w1fit", "wasserstein_w1fit",
                  "spearman_rc_measured", "spearman_rc_fitted", "spearman_rc_w1fit",
                  "value_spearman_measured", "spearman_vs_native",
                  "log10_peak_to_trough", "log10_peak_to_trough_body", "theory_log10_peak_to_trough",
                  "recency_weight", "primacy_mass", "middle_mass", "valley_x", "valley_c", "valley_r2",
                  "score_fraction_median")
_NAN2 = (math.nan, math.nan)


def metric_ci(summary: dict, name: str) -> tuple[float, float]:
    """The 95% CI of metrics.csv column ``name`` of a summary (NaN when it has none)."""
    return summary.get("ci", {}).get(name, _NAN2)


TIMING_COLUMNS = ("compile_seconds", "device_seconds", "host_seconds", "compiles", "summary_seconds")


def timing_records(summaries: dict) -> list[dict]:
    """Rows of timings.csv: the measurement time of each (preset, variant), summed over its seeds, split into
    compile, device and host seconds, with the programs compiled and the host time of its summary (theory
    rows, bootstrap); kept out of the result tables so that two runs of one config write identical results."""
    return [dict(preset=name, variant=variant, seeds=s["seeds"], seconds=s["seconds"],
                 **{c: s.get("timings", {}).get(c, math.nan) for c in TIMING_COLUMNS})
            for (name, variant), s in summaries.items()]


def metric_records(summaries: dict, plans: dict) -> list[dict]:
    """Rows of metrics.csv: one per (preset, variant); each metric with a CI has <name>_lo, <name>_hi."""
    rows = []
    for (name, variant), s in summaries.items():
        row = dict(preset=name, variant=variant, method=plans[name].method, probes=plans[name].probes,
                   a_mean=float(np.mean(s["alphas"])))
        row["a_mean_lo"], row["a_mean_hi"] = metric_ci(s, "a_mean")
        for c in METRIC_COLUMNS:
            row[c] = s[c]
            if c not in ("seeds", "length", "depth"):
                row[f"{c}_lo"], row[f"{c}_hi"] = metric_ci(s, c)
        for kind in THEORY_ROWS:  # the points the W1 intervals are centred on
            row[f"wasserstein_bc_{kind}"] = s[f"wasserstein_bc_{kind}"]
        native = s.get("agreement", {}).get(("total", "native", s["length"]))
        row["wasserstein_vs_native"] = native.wasserstein if native else math.nan
        row["wasserstein_vs_native_lo"], row["wasserstein_vs_native_hi"] = metric_ci(s, "wasserstein_vs_native")
        total = s.get("agreement", {}).get(("total", "measured", s["length"]))
        row["ceiling"] = total.ceiling if total else math.nan
        row["ceiling_lo"], row["ceiling_hi"] = total.ceiling_ci if total else _NAN2
        for ref in (*THEORY_ROWS, "native"):
            row.update(misfit_columns(s.get("misfit", {}).get((ref, s["length"])), f"_{ref}"))
        rows.append(row)
    return rows


def agreement_records(summaries: dict) -> list[dict]:
    """Rows of agreement.csv: one per (preset, variant, pathway, reference, bins)."""
    out = []
    for (name, variant), s in summaries.items():
        for (pathway, ref, bins), ag in s.get("agreement", {}).items():
            m = s.get("misfit", {}).get((ref, bins)) if pathway == "total" else None
            out.append(dict(preset=name, variant=variant, pathway=pathway, reference=_REFERENCE[ref], bins=bins,
                            binned=bins < s["length"], rows=ag.rows, **ag.columns(), reliability=ag.reliability,
                            **misfit_columns(m)))
    return out


THEORY_ROWS = ("measured", "fitted", "w1fit")  # the theory rows compared (analysis.seed_summary)
_REFERENCE = {"measured": "theory_measured", "fitted": "theory_fitted", "w1fit": "theory_w1fit", "native": "native"}


def alpha_records(summaries: dict) -> list[dict]:
    """Rows of alphas.csv: measured a_l (mean, SEM and 95% t interval over seeds) per layer l = 1..H."""
    out = []
    for (name, variant), s in summaries.items():
        lo, hi = s.get("alphas_ci", (np.full(s["depth"], np.nan),) * 2)
        out += [dict(preset=name, variant=variant, layer=l + 1, a_mean=float(s["alphas"][l]),
                     a_sem=float(s["alphas_sem"][l]), a_lo=float(lo[l]), a_hi=float(hi[l])) for l in range(s["depth"])]
    return out


HEAT_HEADS = 3  # heads of each heatmap layer saved in attention.csv


def attention_records(summaries: dict, heat_length: int | None = None) -> list[dict]:
    """Rows of attention.csv: seed 0's attention probabilities A[i, j] (j <= i: the causal part) of the
    heatmap layers (1-based) and the first HEAT_HEADS heads, native variant (else the first) of each preset,
    on the first ``heat_length`` positions (None: all that were measured)."""
    out = []
    for name in dict.fromkeys(n for n, _ in summaries):
        variant = "native" if (name, "native") in summaries else next(v for n, v in summaries if n == name)
        heat = summaries[(name, variant)].get("heat")
        if heat is None:
            continue
        layers, probs = heat  # [layers] 0-based, [layers, N, l, l]
        size = probs.shape[-1] if heat_length is None else min(probs.shape[-1], heat_length)
        i, j = np.tril_indices(size)
        for r, layer in enumerate(layers):
            for h in range(min(HEAT_HEADS, probs.shape[1])):
                values = probs[r, h][i, j]
                out += [dict(preset=name, variant=variant, layer=int(layer) + 1, head=h + 1, i=int(a) + 1,
                             j=int(b) + 1, prob=float(v)) for a, b, v in zip(i, j, values)]
    return out
