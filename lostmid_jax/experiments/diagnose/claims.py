"""The diagnosis' tables (records), its summary table and its verdict, from the measurements.

Every number a reader compares carries its 95% interval; each verdict line
says whether a difference is beyond the noise.
"""

from __future__ import annotations

import math

import numpy as np

from ...stats.chance import ABOVE, against_chance
from ...stats.format import fmt_ci
from ...stats.intervals import sem_rows, t_interval
from ...stats.valley import depth_ratio, valley_depth, valley_fit
from .columns import COLUMNS


def _na(value):
    """None (an empty CSV field) for a non-finite float."""
    if isinstance(value, (float, np.floating)) and not math.isfinite(float(value)):
        return None
    return float(value) if isinstance(value, np.floating) else value


def _normalized(rows: np.ndarray) -> np.ndarray:
    return rows / rows.sum(axis=1, keepdims=True)


def analyse(cfg, out: dict) -> dict:
    """Valley fits of every profile and the birth ratios (added to the measurements)."""
    att = out["attention"]["vs_uniform"][:, -1].mean(axis=1)  # [A, T]: last recorded layer, head mean
    prof = out["profiles"]
    sizes = dict(band=cfg.band, n_boot=cfg.n_boot, seed=cfg.probe.seed)
    fits = {"attention": valley_fit(att, **sizes), "trained": valley_fit(prof["trained"], **sizes),
            "step0": valley_fit(prof["step0"], **sizes), "prior": valley_fit(out["prior_row"], **sizes)}
    depths = {"attention": valley_depth(att.mean(0), band=cfg.band),
              "trained": valley_depth(_normalized(prof["trained"]).mean(0), band=cfg.band),
              "step0": valley_depth(_normalized(prof["step0"]).mean(0), band=cfg.band),
              "prior": valley_depth(out["prior_row"], band=cfg.band)}
    birth = {"step0": depth_ratio(prof["step0"], prof["trained"], **sizes),
             "prior": depth_ratio(out["prior_row"], prof["trained"], **sizes)}
    return dict(fits=fits, depths=depths, birth=birth)


def records(result) -> dict[str, list[dict]]:
    """{file name: rows} of accuracy, examples, gaps, attention, heatmap, profiles, valley and birth."""
    out = result.measured
    acc, examples, gaps = [], [], []
    for length, test in out["tests"].items():
        pos, scores = test["position"], test["scores"]
        beyond = int(test.get("extrapolated", False))
        acc += [dict(length=length, extrapolated=beyond, passage=p + 1, fact_x=float(test["fact_x"][p]), accuracy=float(pos.accuracy[p]),
                     accuracy_lo=_na(pos.accuracy_lo[p]), accuracy_hi=_na(pos.accuracy_hi[p]),
                     exact=float(pos.exact[p]), exact_lo=_na(pos.exact_lo[p]), exact_hi=_na(pos.exact_hi[p]),
                     logprob=float(pos.logprob[p]), logprob_lo=_na(pos.logprob_lo[p]),
                     logprob_hi=_na(pos.logprob_hi[p]), examples=pos.examples, chance=pos.chance)
                for p in range(pos.passages)]
        examples += [dict(length=length, example=e, passage=p + 1, logprob=float(scores.logprob[e, p, 0]),
                          rank=int(scores.rank[e, p]), correct=int(scores.correct[e, p]), exact=int(scores.exact[e, p]))
                     for e in range(pos.examples) for p in range(pos.passages)]
        middle = " ".join(str(p) for p in pos.middle)
        gaps += [dict(length=length, extrapolated=beyond, measure=name, middle=middle, mean=_na(g.mean), lo=_na(g.lo), hi=_na(g.hi),
                      units=g.units, verdict=g.verdict("middle", "ends") if pos.middle else "no middle passage")
                 for name, g in (("accuracy", pos.accuracy_gap), ("logprob", pos.logprob_gap))]
    rate_columns = [c for c in COLUMNS["baselines.csv"] if c not in ("condition", "prompt_tokens")]
    baselines = [dict(condition=name, **{c: _na(getattr(b["rates"], c)) for c in rate_columns},
                      prompt_tokens=float(np.mean(b["prompt_tokens"])))
                 for name, b in out.get("baselines", {}).items()]
    return {"accuracy.csv": acc, **({"baselines.csv": baselines} if baselines else {}),
            "examples.csv": examples, "gaps.csv": gaps,
            "attention.csv": _attention_rows(out["attention"]), "heatmap.csv": _heat_rows(out["attention"]["heat"]),
            "profiles.csv": _profile_rows(out), "valley.csv": _valley_rows(result.analysis),
            "birth.csv": _birth_rows(result.analysis, out["profiles"]["trained"].shape[0])}


def _attention_rows(att: dict) -> list[dict]:
    rows = []
    ratio = att["vs_uniform"]  # [A, H', N, T]
    raw = att["raw"].mean(axis=(0, 2))  # [H', T]
    head_mean = ratio.mean(axis=2)  # [A, H', T]
    lo, hi = t_interval(head_mean) if ratio.shape[0] > 1 else (np.full(head_mean.shape[1:], np.nan),) * 2
    per_head = ratio.mean(axis=0)  # [H', N, T]
    length = ratio.shape[-1]
    for n, layer in enumerate(att["layers"]):
        for j in range(length):
            rows.append(dict(layer=int(layer), j=j + 1, x=(j + 1) / length, raw=float(raw[n, j]),
                             vs_uniform=float(head_mean[:, n, j].mean()), vs_uniform_lo=_na(lo[n, j]),
                             vs_uniform_hi=_na(hi[n, j]), vs_uniform_head_min=float(per_head[n, :, j].min()),
                             vs_uniform_head_max=float(per_head[n, :, j].max())))
    return rows


def _heat_rows(heat: np.ndarray) -> list[dict]:
    bins = heat.shape[0]
    return [dict(query_bin=q, key_bin=k, query_x=(q + 0.5) / bins, key_x=(k + 0.5) / bins, ratio=_na(heat[q, k]))
            for q in range(bins) for k in range(bins)]


def _profile_rows(out: dict) -> list[dict]:
    prof = out["profiles"]
    trained, step0 = _normalized(prof["trained"]), _normalized(prof["step0"])
    t_sem, s_sem = sem_rows(trained), sem_rows(step0)
    length = trained.shape[1]
    return [dict(j=j + 1, x=(j + 1) / length, trained=float(trained[:, j].mean()), trained_sem=float(t_sem[j]),
                 step0=float(step0[:, j].mean()), step0_sem=float(s_sem[j]), prior=float(out["prior_row"][j]))
            for j in range(length)]


def _valley_rows(analysis: dict) -> list[dict]:
    rows = []
    for name, v in analysis["fits"].items():
        rows.append(dict(profile=name, alpha=v.alpha, alpha_lo=_na(v.alpha_lo), alpha_hi=_na(v.alpha_hi), r2=v.r2,
                         alpha_left=v.left.c, alpha_right=v.right.c, describes=int(v.describes), reason=v.reason,
                         rows=v.rows, valley_depth=_na(analysis["depths"][name]), primacy_mass=v.u.primacy_mass,
                         middle_mass=v.u.middle_mass, recency_weight=v.u.recency_weight, valley_x=v.u.valley_x))
    return rows


def _birth_rows(analysis: dict, rows: int) -> list[dict]:
    return [dict(reference=name, depth_reference=_na(analysis["depths"][name]),
                 depth_trained=_na(analysis["depths"]["trained"]), ratio=_na(r), ratio_lo=_na(lo), ratio_hi=_na(hi),
                 rows=rows) for name, (r, lo, hi) in analysis["birth"].items()]


def _ci(value, lo, hi, spec=".3f") -> str:
    return fmt_ci(value, lo, hi, spec, missing="n/a", no_ci="[CI n/a]")


def table(result) -> str:
    """Accuracy per (length, passage) with intervals, then the valley fits and the birth ratios."""
    head = (f"{'T':>6} {'passage':>7} {'fact x':>6}  {'MC accuracy [95% CI]':<24} {'exact match [95% CI]':<24} "
            f"{'mean log P':>10}")
    lines = [head, "-" * len(head)]
    for length, test in result.measured["tests"].items():
        pos = test["position"]
        shown = starred(length, test.get("extrapolated"))
        for p in range(pos.passages):
            lines.append(f"{shown:>6} {p + 1:>7} {test['fact_x'][p]:>6.2f}  "
                         f"{_ci(pos.accuracy[p], pos.accuracy_lo[p], pos.accuracy_hi[p]):<24} "
                         f"{_ci(pos.exact[p], pos.exact_lo[p], pos.exact_hi[p]):<24} {pos.logprob[p]:>10.3f}")
    for name, b in result.measured.get("baselines", {}).items():
        r = b["rates"]
        lines.append(f"{'-':>6} {name:>14}  {_ci(r.accuracy, r.accuracy_lo, r.accuracy_hi):<24} "
                     f"{_ci(r.exact, r.exact_lo, r.exact_hi):<24} {r.logprob:>10.3f}")
    note = _extrapolation_note(result)
    if note:
        lines.append("* " + note)
    first = result.measured["length"]
    lines += ["", f"at T = {first}{' (extrapolated)' if result.measured['tests'][first].get('extrapolated') else ''}:",
              f"{'profile':<10} {'alpha [95% CI]':<28} {'R^2':>6} {'power law':<10} {'depth V':>8}"]
    for name, v in result.analysis["fits"].items():
        lines.append(f"{name:<10} {_ci(v.alpha, v.alpha_lo, v.alpha_hi, '.2f'):<28} {v.r2:>6.2f} "
                     f"{'describes' if v.describes else 'no':<10} {result.analysis['depths'][name]:>8.3f}")
    return "\n".join(lines)


PASTE_HEADER = ["T", "passage", "fact x", "MC accuracy [95% CI]", "exact match [95% CI]", "mean log P [95% CI]"]


def starred(length, extrapolated) -> str:
    """T as the tables show it: starred when that length was measured beyond the trained context."""
    return f"{int(length)}{'*' if extrapolated else ''}"


def main_table(tables: dict, verdict=None) -> tuple[list[str], list[list[str]]]:
    """``lostmid table``: accuracy by (length, passage) with Wilson intervals, then the baseline rows, from the
    run's accuracy.csv and baselines.csv; a length measured beyond the trained context is starred."""
    from ...present.paste import needed

    def cells(row) -> list[str]:
        return [_ci(row[n], row[f"{n}_lo"], row[f"{n}_hi"]) for n in ("accuracy", "exact", "logprob")]

    rows = [[starred(r["length"], r.get("extrapolated", 0) == 1), str(int(r["passage"])), f"{r['fact_x']:.2f}", *cells(r)]
            for _, r in needed(tables, "accuracy", "diagnose").iterrows()]
    if "baselines" in tables:
        rows += [["", str(r["condition"]), "", *cells(r)] for _, r in tables["baselines"].iterrows()]
    return PASTE_HEADER, rows


def _extrapolation_note(result) -> str | None:
    """The lengths measured beyond the trained context (--allow-extrapolation), or None."""
    from ...probes.context import extrapolation_note

    beyond = [str(t) for t, test in result.measured["tests"].items() if test.get("extrapolated")]
    return extrapolation_note(result.model_config, f"T = {', '.join(beyond)}" if beyond else "")


def overall_against_chance(rates, examples: int, chance: float) -> tuple[float, float, float, str]:
    """(accuracy, lo, hi, reading) over all passages: the k per-passage ``rates`` of ``examples`` prompts each
    pooled, its 95% Wilson interval and :func:`~lostmid_jax.stats.chance.against_chance` of it."""
    from ...stats.intervals import wilson_interval

    trials = examples * len(rates)
    total = int(round(float(np.sum(rates) * examples)))
    lo, hi = wilson_interval(total, trials)
    return total / trials, lo, hi, against_chance(lo, hi, chance)


def _position_lines(length: int, pos) -> list[str]:
    """The position test at one length: rates, the paired gaps, and the overall accuracy against chance
    (:func:`lostmid_jax.stats.chance.against_chance`; below it, a dip cannot show)."""
    k, lines = pos.passages, []
    if pos.middle:
        g, lg = pos.accuracy_gap, pos.logprob_gap
        middle = float(np.mean(pos.accuracy[[p - 1 for p in pos.middle]]))
        lines.append(f"Position test at T = {length} ({pos.examples} examples x {k} passages): accuracy first "
                     f"{pos.accuracy[0]:.2f}, middle {middle:.2f}, last {pos.accuracy[-1]:.2f} (chance "
                     f"{pos.chance:.2f}); middle - ends = {_ci(g.mean, g.lo, g.hi, '+.3f')}: {pos.verdict}.")
        lines.append(f"  log P(right answer), middle - ends = {_ci(lg.mean, lg.lo, lg.hi, '+.3f')} nats: "
                     f"{lg.verdict('middle', 'the ends')}.")
    else:
        lines.append(f"Position test at T = {length}: k = 2 passages have no middle; accuracy "
                     f"{pos.accuracy[0]:.2f} and {pos.accuracy[1]:.2f}.")
    acc, lo, hi, reading = overall_against_chance(pos.accuracy, pos.examples, pos.chance)
    lines.append(f"  Overall accuracy {acc:.2f}, 95% CI [{lo:.2f}, {hi:.2f}], chance "
                 f"{pos.chance:.2f}: {reading}" + ("." if reading == ABOVE else
                                                   "; the position test cannot show a dip here."))
    return lines


def _baseline_lines(baselines: dict) -> list[str]:
    """Closed-book and oracle accuracy with their Wilson intervals, in one line."""
    if not baselines:
        return []
    what = {"closed-book": "the question alone", "oracle": "the fact alone, then the question"}
    parts = [f"{name} {_ci(b['rates'].accuracy, b['rates'].accuracy_lo, b['rates'].accuracy_hi, '.2f')} "
             f"({what.get(name, name)})" for name, b in baselines.items()]
    return [f"Baselines, same examples, multiple-choice accuracy [95% Wilson]: {'; '.join(parts)}."]


def verdict_lines(result) -> list[str]:
    """The position test and how much of the valley is the prior's; after the Details line, the attention
    against uniform and the valley law (the report folds them)."""
    from ...present.verdict_table import DETAILS

    cfg, out, an = result.config, result.measured, result.analysis
    lines, details = [line for line in (_extrapolation_note(result), out.get("unknown")) if line], []
    for length, test in out["tests"].items():
        shown = f"{length} (extrapolated)" if test.get("extrapolated") else length
        lines += _position_lines(shown, test["position"])
    lines += _baseline_lines(out.get("baselines", {}))
    att = out["attention"]["vs_uniform"][:, -1].mean(axis=1)  # [A, T]
    x = np.arange(1, att.shape[1] + 1) / att.shape[1]
    centre = att[:, np.abs(x - 0.5) < cfg.band].mean(axis=1)
    c_lo, c_hi = t_interval(centre[:, None]) if centre.size > 1 else (np.array([np.nan]),) * 2
    details.append(f"Attention received at T = {out['length']}, layer {int(out['attention']['layers'][-1])}, head "
                 f"mean: keys in the central band |x - 1/2| < {cfg.band} get "
                 f"{_ci(float(centre.mean()), float(c_lo[0]), float(c_hi[0]), '.2f')} times what uniform attention "
                 f"over the mask gives them (1 = uniform; the raw column mean falls with j under a causal mask even "
                 f"for uniform attention).")
    for name, label in (("attention", "attention vs uniform"), ("trained", "influence profile")):
        v = an["fits"][name]
        law = "describes it" if v.describes else f"does not describe it: {v.reason}"
        details.append(f"Valley power law of the {label}: alpha = {_ci(v.alpha, v.alpha_lo, v.alpha_hi, '.2f')}, "
                     f"R^2 = {v.r2:.2f}; the |pos - T/2| law {law}.")
    r, r_lo, r_hi = an["birth"]["step0"]
    p, p_lo, p_hi = an["birth"]["prior"]
    vt = an["depths"]["trained"]
    if math.isfinite(r):
        lines.append(f"At birth: the same architecture's Step-0 profile has {_ci(r, r_lo, r_hi, '.2f')} of the trained "
                     f"model's valley depth V = {vt:.3f} (V = ln(end bands / central band)); its theory prior "
                     f"{_ci(p, p_lo, p_hi, '.2f')}. {_birth_reading(r, r_lo, r_hi)}")
    else:
        lines.append(f"At birth: the trained influence profile has no valley (V = {vt:.3f} <= 0: the centre gets as "
                     "much as the ends), so no share of it can be given to the architecture.")
    return lines + [DETAILS] + details


def _birth_reading(r, lo, hi) -> str:
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return ""
    if lo <= 0 <= hi and lo <= 1 <= hi:
        return "The interval holds both 0 and 1: these prompts cannot tell how much of the valley is the architecture's."
    if lo <= 1 <= hi:
        return "The interval holds 1: the architecture had this valley at birth (no change beyond noise)."
    if hi < 1:
        return "Below 1: training deepened the valley beyond the architecture's prior."
    return "Above 1: training flattened the architecture's valley."


__all__ = ["analyse", "main_table", "overall_against_chance", "records", "table", "verdict_lines"]
