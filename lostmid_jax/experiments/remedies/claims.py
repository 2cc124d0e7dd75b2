"""What a `lostmid remedies` run claims: its records (CSV rows), the table, the verdict and the report's table.

Shapes: E examples, k passages (p = 1..k), L key positions (j = 1..L).
"""

from __future__ import annotations

import math

import numpy as np

from ...probes.checkpoint import RANDOM_TINY
from ...stats.format import fmt_ci
from .columns import DIFFERENCES

NAME = "remedies"
NOT_APPLICABLE = "not applicable"


# ----------------------------------------------------------------------------- theory, in words
def theory_text(remedy, base, other, effect) -> str:
    """What the Step-0 theory predicts for ``remedy`` (module docstring of probes.remedies)."""
    ratio = effect.step0_ratio
    if remedy.kind in ("rope_base", "rope_scaling"):
        same = base.prior == other.prior and math.isclose(ratio, 1.0, rel_tol=1e-12)
        return (f"no change: the same prior ({other.prior}) and the same Step-0 row; RoPE does not enter uniform "
                f"attention, so any effect is on what training learned" if same else
                f"prior {base.prior} -> {other.prior}: fact share x{ratio:.3g}")
    if remedy.kind == "sinks":
        return (f"the mask changes the prior itself: {base.prior} -> {other.prior}; the fact's Step-0 share "
                f"x{ratio:.3g}")
    what = "markers lengthen the prompt and move the fact" if remedy.kind == "markers" else \
        f"the key passage moves to the {remedy.place} passage of the U"
    return f"{what} (T {base.length} -> {other.length}, prior {other.prior}): the fact's Step-0 share x{ratio:.3g}"


# ----------------------------------------------------------------------------- records
def _accuracy_rows(name: str, m) -> list[dict]:
    r = m.result
    return [{"remedy": name, "passage": p + 1, "accuracy": r.accuracy[p], "accuracy_lo": r.accuracy_lo[p],
             "accuracy_hi": r.accuracy_hi[p], "exact": r.exact[p], "exact_lo": r.exact_lo[p],
             "exact_hi": r.exact_hi[p], "logprob": r.logprob[p], "chance": r.chance} for p in range(r.passages)]


def _measurement_row(name: str, m, valley, note: str = "", beyond: bool = False) -> dict:
    row = {"remedy": name, "applied": int(m is not None), "note": note}
    if m is None:
        return row
    gap = m.result.accuracy_gap
    row.update(length=m.length, extrapolated=int(beyond), prior=m.prior, position_verdict=m.result.verdict,
               gap=gap.mean, gap_lo=gap.lo,
               gap_hi=gap.hi, fact_attention=float(np.mean(m.fact_attention)) if m.fact_attention.size else None,
               fact_influence=float(np.mean(m.fact_influence)) if m.fact_influence.size else None,
               step0_share=m.step0_share)
    if valley is not None:
        row.update(valley_alpha=valley.alpha, valley_alpha_lo=valley.alpha_lo, valley_alpha_hi=valley.alpha_hi,
                   valley_r2=valley.r2, valley_describes=int(valley.describes), valley_reason=valley.reason)
    return row


def _effect_row(spec: str, remedy, m, effect, base, note: str | None = None) -> dict:
    from ...probes.remedies import NOOP, is_noop

    row = {"remedy": spec, "kind": remedy.kind, "acts_on": remedy.acts_on,
           "verdict": effect.verdict if effect else NOOP if is_noop(note) else NOT_APPLICABLE}
    if is_noop(note):  # the same function at these lengths: the Step-0 row too
        row.update(step0_ratio=1.0, theory=f"no change: {note[len(NOOP) + 2:]}")
    if effect is None:
        return row
    for name in DIFFERENCES:
        d = getattr(effect, name)
        if d is not None:
            row.update({name: d.mean, f"{name}_lo": d.lo, f"{name}_hi": d.hi})
    row.update(step0_ratio=effect.step0_ratio, theory=theory_text(remedy, base, m, effect))
    return row


def _profile_rows(name: str, rows_raw, rows_ratio=None, *, column="share") -> list[dict]:
    length = rows_raw.shape[1]
    if rows_ratio is None:  # influence: normalize each row, then average
        shares = (rows_raw / rows_raw.sum(axis=1, keepdims=True)).mean(axis=0)
        return [{"remedy": name, "j": j + 1, "x": (j + 1) / length, column: shares[j]} for j in range(length)]
    raw, ratio = rows_raw.mean(axis=0), rows_ratio.mean(axis=0)
    return [{"remedy": name, "j": j + 1, "x": (j + 1) / length, "raw": raw[j], "vs_uniform": ratio[j]}
            for j in range(length)]


def _measured(result):
    """[(name, Measurement)] of the unmodified model and every applied remedy, in order."""
    return [("none", result.base)] + [(s, v[1]) for s, v in result.remedies.items() if v[1] is not None]


def records(result) -> dict[str, list[dict]]:
    """accuracy.csv, measurements.csv, effects.csv, received.csv (and influence.csv when measured)."""
    measured = _measured(result)
    out = {
        "accuracy.csv": [r for name, m in measured for r in _accuracy_rows(name, m)],
        "measurements.csv": [_measurement_row("none", result.base, result.valleys.get("none"),
                                              beyond=result.extrapolated.get("none", False))] + [
            _measurement_row(s, m, result.valleys.get(s), note or "", result.extrapolated.get(s, False))
            for s, (_, m, _, note) in result.remedies.items()],
        "effects.csv": [_effect_row(s, r, m, e, result.base, note) for s, (r, m, e, note) in result.remedies.items()],
        "received.csv": [r for name, m in measured for r in _profile_rows(name, m.received_raw, m.received_vs_uniform)],
    }
    if result.base.influence.size:
        out["influence.csv"] = [r for name, m in measured for r in _profile_rows(name, m.influence)]
    return out


# ----------------------------------------------------------------------------- table and verdict
def _ci(d) -> str:
    return fmt_ci(d.mean, d.lo, d.hi, "+.3f")


def table(result) -> str:
    """One line per model: middle / ends accuracy, the position verdict, attention to the fact, valley alpha."""
    lines = [f"{'model':<26} {'T':>6} {'acc mid':>8} {'acc ends':>8} {'fact att.':>9} {'alpha':>7}  position test"]
    k = result.base.correct.shape[1]
    from ...probes.accuracy_by_passage import end_passages, middle_passages

    mid = [p - 1 for p in (middle_passages(k) or (1,))]
    ends = [p - 1 for p in end_passages(k)]
    for name, m in _measured(result):
        v = result.valleys.get(name)
        alpha = f"{v.alpha:7.2f}" if v is not None else f"{'-':>7}"
        att = f"{np.mean(m.fact_attention):9.3f}" if m.fact_attention.size else f"{'-':>9}"
        length = f"{m.length}*" if result.extrapolated.get(name) else str(m.length)
        lines.append(f"{name:<26} {length:>6} {m.correct[:, mid].mean():8.3f} {m.correct[:, ends].mean():8.3f} "
                     f"{att} {alpha}  {m.result.verdict}")
    for spec, (_, m, _, note) in result.remedies.items():
        if m is None:
            lines.append(f"{spec:<26} {_unmeasured(note)}")
    if any(result.extrapolated.values()):
        lines.append("* " + _extrapolation_note(result))
    return "\n".join(lines)


def _extrapolation_note(result) -> str | None:
    """The remedies measured beyond the checkpoint's trained context (--allow-extrapolation), or None."""
    from ...probes.context import extrapolation_note

    return extrapolation_note(result.model_config, ", ".join(n for n, b in result.extrapolated.items() if b))


def _unmeasured(note: str) -> str:
    """'no-op at this length: why' or 'not applicable: why' of a remedy that was not measured."""
    from ...probes.remedies import is_noop

    return note if is_noop(note) else f"{NOT_APPLICABLE}: {note}"


def _grouped(result) -> dict[str, list[str]]:
    """{verdict: [spec, ...]} of every remedy: helps, hurts, no difference, no-op, not applicable, then the rest."""
    from ...probes.remedies import NOOP, is_noop

    groups: dict[str, list[str]] = {}
    for spec, (_, _, effect, note) in result.remedies.items():
        verdict = effect.verdict if effect else NOOP if is_noop(note) else NOT_APPLICABLE
        groups.setdefault(verdict, []).append(spec)
    order = ("helps", "hurts", "no difference beyond noise", NOOP, NOT_APPLICABLE)
    return {v: groups[v] for v in sorted(groups, key=lambda v: order.index(v) if v in order else len(order))}


def verdict_lines(result) -> list[str]:
    """A short verdict (the unmodified model's position test, the remedies grouped by verdict), then, after
    the Details line, one line per remedy with its numbers and the Step-0 prediction."""
    from ...probes.remedies import is_noop
    from ...present.verdict_table import DETAILS

    cfg, base = result.config, result.base
    gap = base.result.accuracy_gap
    lines = [f"{cfg.title}: unmodified model, {base.result.examples} examples x {base.correct.shape[1]} passages, "
             f"T = {base.length}: {base.result.verdict} (middle - ends accuracy {_ci(gap)}; chance "
             f"{base.result.chance:.2f})",
             "Each remedy against it, middle accuracy (paired over the same examples, 95% CI; the numbers: "
             "effects.csv):"]
    lines += [f"  {verdict}: {', '.join(specs)}" for verdict, specs in _grouped(result).items()]
    lines.append(DETAILS)
    for spec, (remedy, m, effect, note) in result.remedies.items():
        if effect is None:
            lines.append(f"{spec}: {note}" if is_noop(note) else f"{spec}: {NOT_APPLICABLE} ({note})")
            continue
        att = f"; attention to the fact {_ci(effect.fact_attention)}" if effect.fact_attention else ""
        cost = {-1: ", but the ends get worse", 1: ", and the ends get better", 0: ""}[effect.ends.sign]
        lines.append(f"{spec}: {effect.verdict} in the middle{cost} (middle accuracy {_ci(effect.middle)}, ends "
                     f"{_ci(effect.ends)}, "
                     f"middle log P {_ci(effect.middle_logprob)}{att}). Step 0: "
                     f"{theory_text(remedy, base, m, effect)}")
    if any(result.extrapolated.values()):
        lines.insert(1, _extrapolation_note(result))
    if result.unknown:
        lines.insert(1, result.unknown)
    lines.append("Serving-side KV-cache reordering is not a remedy here: it returns the same keys and values, so the "
                 "model's output and its influence profile are unchanged (README, scope).")
    if cfg.checkpoint.weights == RANDOM_TINY:  # the smoke note comes first, as in every verdict
        lines.insert(0, "(smoke run: a random tiny model answers at chance; the numbers test the pipeline, not "
                        "remedies)")
    return lines


def page_table(tables: dict, cfg=None):
    """The report's results table from effects.csv: remedy, verdict, the middle and ends accuracy differences
    with their 95% paired intervals, the Step-0 ratio (present.page.PageTable)."""
    from ...present.page import PageTable

    effects = tables["effects"]
    ci = lambda r, c: fmt_ci(r[c], r[f"{c}_lo"], r[f"{c}_hi"], "+.3f", missing="")  # noqa: E731
    rows = tuple((str(r["remedy"]), str(r["verdict"]), ci(r, "middle"), ci(r, "ends"),
                  "" if r["step0_ratio"] != r["step0_ratio"] else f"{r['step0_ratio']:.3g}")
                 for _, r in effects.iterrows())
    return PageTable(("remedy", "verdict", "\u0394 middle [95% CI]", "\u0394 ends [95% CI]", "Step-0 ratio"), rows,
                     note="\u0394: the remedy minus the unmodified model, multiple-choice accuracy at the middle "
                          "passage(s) and at passages 1 and k, mean over the same examples with its 95% paired "
                          "bootstrap interval; the verdict reads the middle's interval. Step-0 ratio: the theory's "
                          "predicted ratio of the fact's influence share (1: no change predicted). 'no-op at this "
                          "length': the remedied model computes exactly the unmodified one at these lengths (not "
                          "measured). From effects.csv.", outcomes=(1,))



def main_table(tables: dict, verdict=None) -> tuple[list[str], list[list[str]]]:
    """``lostmid table``: the report page's results table (:func:`page_table`) as rows of text cells."""
    from ...present.paste import needed

    needed(tables, "effects", NAME)
    page = page_table(tables, None)
    return list(page.header), [list(row) for row in page.rows]


__all__ = ["NOT_APPLICABLE", "main_table", "page_table", "records", "table", "theory_text", "verdict_lines"]
