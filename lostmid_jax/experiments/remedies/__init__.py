"""`lostmid remedies`: inference-time remedies on the same trained model, paired against it, with what Step 0 predicts.

Shapes: E examples, k passages (p = 1..k), T prompt ids, L = T key positions (j = 1..L, x = j/L).

For a checkpoint (any family ``nn.load_hf`` reads; its own tokenizer in text
mode, or the token-level probe), builds the position-controlled probe
(:mod:`lostmid_jax.probes.documents`: the fact in passage p, everything else
identical across p), measures the unmodified model, then each remedy of
:mod:`lostmid_jax.probes.remedies` (a RoPE base or scaling change, markers,
the RAG reordering, sinks with a window) on the same examples:
accuracy per passage with Wilson intervals, attention received, the valley
fit of the attention profile, the exact influence profile on a few prompts,
and the Step-0 theory's prediction; each remedy's paired differences against
the unmodified model with 95% bootstrap intervals and a verdict
(:mod:`lostmid_jax.probes.remedy_effects`). A remedy that provably changes
nothing at the probe's lengths (``sinks:4:256`` at T = 256,
``rope_scaling:dynamic:2`` within the original context;
:func:`lostmid_jax.probes.remedies.noop_reason`) is not measured and is
reported as "no-op at this length".

Writes accuracy.csv, measurements.csv, effects.csv, received.csv (and
influence.csv with --influence-examples), table.txt, verdict.txt and the
figures (:mod:`lostmid_jax.plots.remedies`). ``--smoke`` without
``--weights`` writes a tiny random Llama with a word-level tokenizer into
<run_dir>/checkpoint and runs offline.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time

import numpy as np

from ...stats.columns import interval_meanings
from ...stats.format import fmt_ci
from .config import RANDOM_TINY, SMOKE, SMOKE_HELP, Config

NAME = "remedies"
NOT_APPLICABLE = "not applicable"
CLI_DEPRECATED = {"length": "lengths"}  # the flag is spelled as diagnose's; --length still reads, with a hint
VERDICT_TITLE = "inference-time remedies vs the unmodified model (paired over examples, 95% CIs)"
FILES = {"checkpoint": "the tiny random Llama and its word-level tokenizer measured with --smoke"}
_LOG = logging.getLogger(__name__)

_DIFF = {name: (f"{what}: remedy minus unmodified, mean over examples", "") for name, what in (
    ("middle", "multiple-choice accuracy at the middle passage(s)"),
    ("ends", "multiple-choice accuracy at passages 1 and k"),
    ("overall", "multiple-choice accuracy over all passages"),
    ("middle_logprob", "log P(right answer) at the middle passage(s) (natural log)"),
    ("fact_attention", "attention received by the fact's ids / uniform (middle prompt; empty below 2 examples)"),
    ("fact_influence", "the fact's share of the influence profile (middle prompt; empty below 2 examples)"))}
COLUMNS = {
    "accuracy.csv": {
        "remedy": ("'none' (the unmodified model) or the remedy's spec", ""),
        "passage": ("passage p holding the fact, 1-based (1..k)", ""),
        "accuracy": ("multiple-choice accuracy (right answer ranked first)", ""),
        "accuracy_lo": ("lower end of its 95% Wilson interval", ""),
        "accuracy_hi": ("upper end of its 95% Wilson interval", ""),
        "exact": ("greedy exact match of the right answer", ""),
        "exact_lo": ("lower end of its 95% Wilson interval", ""),
        "exact_hi": ("upper end of its 95% Wilson interval", ""),
        "logprob": ("mean log P(right answer) over examples (natural log)", ""),
        "chance": ("chance accuracy 1 / C", ""),
    },
    "measurements.csv": {
        "remedy": ("'none' (the unmodified model) or the remedy's spec", ""),
        "applied": ("1 when the remedy was measured (else the row is empty and note says why: it does not apply to "
                    "this model, or it is a no-op at this length)", ""),
        "note": ("why the remedy was not measured ('' when applied)", ""),
        "length": ("T, the prompt length the model read (markers lengthen it)", "tokens"),
        "extrapolated": ("1 when the forward (prompt and answer) reads beyond the checkpoint's trained context "
                         "(measured with --allow-extrapolation), else 0", ""),
        "prior": ("the Step-0 theory prior of the (remedied) architecture at T (analysis.prior_for)", ""),
        "position_verdict": ("the position test: middle worse / middle better / no difference beyond noise", ""),
        "gap": ("paired middle-minus-ends accuracy gap, mean over examples", ""),
        "gap_lo": ("lower end of its 95% paired bootstrap interval", ""),
        "gap_hi": ("upper end of its 95% paired bootstrap interval", ""),
        "fact_attention": ("attention received by the fact's ids / uniform over the mask, mean over examples", ""),
        "fact_influence": ("the fact's share of the exact influence profile, mean (empty when not measured)", ""),
        "step0_share": ("the fact's share of the Step-0 theory row (uniform attention over the mask, a = theory_a)", ""),
        "valley_alpha": ("alpha of the power law beta |pos - L/2|^(-alpha) on the raw attention received "
                         "(negative: a valley; stats.valley)", ""),
        "valley_alpha_lo": ("lower end of its 95% bootstrap interval over examples", ""),
        "valley_alpha_hi": ("upper end of its 95% bootstrap interval over examples", ""),
        "valley_r2": ("R^2 of that log-log fit", ""),
        "valley_describes": ("1 when the power law describes the profile by stats.valley's rule, else 0", ""),
        "valley_reason": ("the rule's first failing condition ('' when it describes the profile)", ""),
    },
    "effects.csv": {
        "remedy": ("the remedy's spec", ""),
        "kind": ("rope_base, rope_scaling, markers, reorder or sinks", ""),
        "acts_on": ("'model' (same weights, changed config) or 'prompt' (same model, changed input)", ""),
        "verdict": ("helps / hurts / no difference beyond noise (the middle accuracy's interval); 'no-op at this "
                    "length' when the remedy provably changes nothing at the probe's lengths (decided from its "
                    "definition, not measured); 'not applicable' when it does not apply to this model", ""),
        **interval_meanings(_DIFF, "95% paired bootstrap interval"),
        "step0_ratio": ("the Step-0 theory's predicted ratio of the fact's influence share, remedy / unmodified "
                        "(1: the theory predicts no change)", ""),
        "theory": ("what the Step-0 theory predicts for this remedy, in words", ""),
    },
    "received.csv": {
        "remedy": ("'none' or the remedy's spec", ""),
        "j": ("key position, 1-based (1..L)", ""),
        "x": ("normalized key position j/L", ""),
        "raw": ("(1/L) sum_i A_ij, mean over layers, heads and the measured prompts", ""),
        "vs_uniform": ("sum_i A_ij / sum over the queries that see j of 1/|S_i| (1 = uniform over the mask), "
                       "mean over layers, heads and prompts", ""),
    },
    "influence.csv": {
        "remedy": ("'none' or the remedy's spec", ""),
        "j": ("input position, 1-based (1..L)", ""),
        "x": ("normalized position j/L", ""),
        "share": ("n_j / sum_i n_i of the exact influence profile ||d y_L / d x_j||_F, mean over the prompts", ""),
    },
}


@dataclasses.dataclass(frozen=True)
class Result:
    """What :func:`run` returns.

    Attributes:
      config: the run's Config.
      model_config: the checkpoint's DecoderConfig.
      base: the unmodified model's Measurement (probes.remedy_effects).
      remedies: {spec: (Remedy, Measurement or None, Effect or None, skipped reason or None)}.
      valleys: {'none' | spec: stats.valley.ValleyFit or None (the fit range too short)}.
      checkpoint: the directory the weights were read from.
      extrapolated: {'none' | spec: True when its forward reads beyond the checkpoint's trained context}.
      unknown: the verdict's line on strings measured as the unknown token (--allow-unknown-tokens), or None.
      cpu: {"seconds": CPU seconds of the run, "estimate": what the config's cost estimated before it}.
    """

    config: Config
    model_config: object
    base: object
    remedies: dict
    valleys: dict
    checkpoint: str
    extrapolated: dict = dataclasses.field(default_factory=dict)
    unknown: str | None = None
    cpu: dict = dataclasses.field(default_factory=dict)


def _valley(rows):
    from ...stats.valley import valley_fit

    try:
        return valley_fit(rows, n_boot=200, seed=0) if rows.shape[1] >= 16 else None
    except ValueError:
        return None


def run(cfg: Config, run_dir=None, *, progress: bool = True, mesh=None) -> Result:
    """Measure the unmodified model and every remedy on the same probe set (``mesh`` unused)."""
    from tqdm.auto import tqdm

    from ...probes.remedies import apply_remedy, parse_remedy
    from ...probes.remedy_effects import compare, measure
    from ...runs.stop import checked

    from ...probes.checkpoint import build_probes, check_text_inputs, load_checkpoint
    from ...probes.context import extrapolated

    cpu = time.process_time()
    model_cfg, model, path, tok = load_checkpoint(cfg, run_dir)
    probes = build_probes(cfg, tok, model_cfg.vocab_size, cfg.length)
    ids = cfg.marker_ids(tok) if any(r.startswith("markers") for r in cfg.remedies) else None
    estimate = cfg.cost(model_cfg, probes.answers.shape[2], len(ids or [1])).seconds
    beyond, scored = {"none": extrapolated(model_cfg, probes.positions_needed)}, [probes]
    sizes = dict(attention_examples=cfg.attention_examples, influence_examples=cfg.influence_examples,
                 batch=cfg.batch, theory_a=cfg.theory_a, n_boot=cfg.n_boot, seed=cfg.seed)
    _LOG.info(f"measuring the unmodified model and {len(cfg.remedies)} remedies on {probes.examples} examples x "
              f"{probes.passages} passages, T = {probes.length} (each remedy compiles once)")
    bar = tqdm(total=1 + len(cfg.remedies), disable=not progress, desc="models")
    base = measure(model, probes, **sizes)
    bar.update()
    out, valleys = {}, {"none": _valley(base.received_raw)}
    for spec in checked(cfg.remedies):
        remedy = parse_remedy(spec)
        applied = apply_remedy(remedy, model, probes, marker_ids=ids, context=cfg.context)
        if applied.skipped:
            out[spec] = (remedy, None, None, applied.skipped)
        else:
            m = measure(applied.model, applied.probes, **sizes)
            out[spec] = (remedy, m, compare(base, m, n_boot=cfg.n_boot, seed=cfg.seed), None)
            valleys[spec] = _valley(m.received_raw)
            beyond[spec] = extrapolated(model_cfg, applied.probes.positions_needed)
            scored.append(applied.probes)
        bar.update()
    bar.close()
    unknown = check_text_inputs(cfg).unknown.line(scored) if cfg.mode == "text" else None
    return Result(cfg, model_cfg, base, out, valleys, str(path), beyond, unknown,
                  {"seconds": round(time.process_time() - cpu, 3), "estimate": round(estimate, 3)})


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
    for name in _DIFF:
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


def _measured(result: Result):
    """[(name, Measurement)] of the unmodified model and every applied remedy, in order."""
    return [("none", result.base)] + [(s, v[1]) for s, v in result.remedies.items() if v[1] is not None]


def records(result: Result) -> dict[str, list[dict]]:
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


def table(result: Result) -> str:
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


def _extrapolation_note(result: Result) -> str | None:
    """The remedies measured beyond the checkpoint's trained context (--allow-extrapolation), or None."""
    from ...probes.context import extrapolation_note

    return extrapolation_note(result.model_config, ", ".join(n for n, b in result.extrapolated.items() if b))


def _unmeasured(note: str) -> str:
    """'no-op at this length: why' or 'not applicable: why' of a remedy that was not measured."""
    from ...probes.remedies import is_noop

    return note if is_noop(note) else f"{NOT_APPLICABLE}: {note}"


def _grouped(result: Result) -> dict[str, list[str]]:
    """{verdict: [spec, ...]} of every remedy: helps, hurts, no difference, no-op, not applicable, then the rest."""
    from ...probes.remedies import NOOP, is_noop

    groups: dict[str, list[str]] = {}
    for spec, (_, _, effect, note) in result.remedies.items():
        verdict = effect.verdict if effect else NOOP if is_noop(note) else NOT_APPLICABLE
        groups.setdefault(verdict, []).append(spec)
    order = ("helps", "hurts", "no difference beyond noise", NOOP, NOT_APPLICABLE)
    return {v: groups[v] for v in sorted(groups, key=lambda v: order.index(v) if v in order else len(order))}


def verdict_lines(result: Result) -> list[str]:
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
    if cfg.weights == RANDOM_TINY:  # the smoke note comes first, as in every verdict
        lines.insert(0, "(smoke run: a random tiny model answers at chance; the numbers test the pipeline, not "
                        "remedies)")
    return lines


def summary(result: Result) -> str:
    return table(result)


def verdict(result: Result) -> list[str]:
    return verdict_lines(result)


def figures(tables: dict, cfg: Config) -> dict:
    """{stem: Figure} from the run's tables (:mod:`lostmid_jax.plots.remedies`)."""
    from ...plots import remedies as plots

    out = {"fig1_accuracy": plots.accuracy_by_remedy(tables["accuracy"], title=f"{cfg.title}: accuracy by passage"),
           "fig3_received": plots.received_by_remedy(tables["received"])}
    if "effects" in tables and len(tables["effects"]):
        out["fig2_effects"] = plots.effects(tables["effects"])
    return dict(sorted(out.items()))


def page_title(cfg: Config) -> str:
    """The report page's title: the checkpoint, the length and the sizes (present.page)."""
    from ...probes.checkpoint import stored_checkpoint_name

    return (f"Inference-time remedies on {stored_checkpoint_name(cfg.weights)} at T = {cfg.length}: "
            f"{len(cfg.remedies)} remedies, {cfg.examples} examples x {cfg.passages} passages ({cfg.mode} probe)")


def page_table(tables: dict, cfg: Config):
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


def run_info(result: Result) -> dict:
    return {"checkpoint": result.checkpoint, "cpu_seconds": result.cpu.get("seconds"),
            "estimated_cpu_seconds": result.cpu.get("estimate")}


def describe(result: Result) -> str:
    return f"{len(result.remedies)} remedies x {result.base.result.examples} examples"


__all__ = ["COLUMNS", "Config", "NAME", "NOT_APPLICABLE", "Result", "SMOKE", "SMOKE_HELP", "describe", "figures",
           "main_table", "marker_ids", "page_table", "page_title", "records", "run", "summary", "table", "theory_text",
           "verdict"]
