"""What the comparison concludes: the table (table.txt) and the verdict lines (verdict.txt), each with its 95% CI."""

from __future__ import annotations

import math

from ...stats.format import fmt, fmt_ci
from .config import RANDOM_TINY
from .measure import MODELS, Result
from .tables import metric_records


def _ci(value: float, ci, spec: str) -> str:
    return fmt_ci(value, *ci, spec, missing="n/a", no_ci="[CI n/a]")


def _describe(ag) -> str:
    """The points the intervals are centred on (bias-corrected Spearman and W1, so each lies inside its interval;
    the plain ones where there is no interval) and the ceiling."""
    rho = ag.spearman_bc if math.isfinite(ag.spearman_bc) else ag.spearman
    w1 = ag.wasserstein_bc if math.isfinite(ag.wasserstein_bc) else ag.wasserstein
    return (f"Spearman {_ci(rho, ag.spearman_ci, '.3f')}, W1 {_ci(w1, ag.wasserstein_ci, '.4f')} "
            f"(bias-corrected; seed-noise ceiling {_ci(ag.ceiling, ag.ceiling_ci, '.3f')})")


_LABEL = {"theory_measured": "Step-0 theory, measured a_l", "theory_fitted": "Step-0 theory, fitted a",
          "init": "the random init (paired by seed)"}


def table(result: Result) -> str:
    """Fixed-width table: per model a_l, fitted a, peak-to-trough; then every comparison with its 95% CI."""
    records = metric_records(result.config, result.model_config, result.summaries)
    head = (f"{'model':<11} {'method':<10} {'L':>5} {'H':>3} {'S':>3} {'mean a_l':>8} {'a_fit':>7} "
            f"{'log10 p/t':>9} {'theory p/t':>10} {'valley x':>8}")
    lines = [head, "-" * len(head)]
    for r in records:
        lines.append(f"{r['model']:<11} {r['method']:<10} {r['length']:>5} {r['depth']:>3} {r['seeds']:>3} "
                     f"{r['a_mean']:>8.4f} {fmt(r['a_fit'], '7.4f', 'n/a')} {fmt(r['log10_peak_to_trough'], '9.2f', 'n/a')} "
                     f"{fmt(r['theory_log10_peak_to_trough'], '10.2f', 'n/a')} {fmt(r['valley_x'], '8.3f', 'n/a')}")
    lines.append("")
    lines.append("agreement of the seed-mean profile with each reference, 95% CIs over seeds in brackets:")
    for (model, ref), ag in result.agreements.items():
        lines.append(f"  {model:<10} vs {_LABEL[ref]:<34} {_describe(ag)}")
    return "\n".join(lines)


def _disjoint_below(a, b) -> bool:
    """Whether the CI of ``a`` lies entirely below that of ``b`` (both finite)."""
    return all(map(math.isfinite, (*a, *b))) and a[1] < b[0]


def verdict_lines(result: Result) -> list[str]:
    """The comparisons a reader needs, each with its 95% CI, and what they say (docs/theory.md §5)."""
    ag = result.agreements
    cfg = result.config
    lines = []
    for model in MODELS:
        lines.append(f"{model} vs {_LABEL['theory_measured']}: {_describe(ag[(model, 'theory_measured')])}")
    pre, ini = ag[("pretrained", "theory_measured")], ag[("init", "theory_measured")]
    if _disjoint_below(pre.spearman_ci, ini.spearman_ci):
        call = ("the pretrained profile departs from the Step-0 prediction more than the random init does "
                "(Spearman CIs disjoint)")
    elif _disjoint_below(ini.spearman_ci, pre.spearman_ci):
        call = "the pretrained profile follows the Step-0 prediction more closely than the random init (CIs disjoint)"
    else:
        call = "no clear difference in Spearman against theory between pretrained and init (95% CIs overlap)"
    rough = f"; with {cfg.influence.seeds} seeds the bootstrap CIs are rough" if cfg.influence.seeds < 5 else ""
    lines.append(f"{call}{rough} (the paper's Step-0 claims concern the init: docs/theory.md §5)")
    between = ag[("pretrained", "init")]
    lines.append(f"pretrained vs {_LABEL['init']}: {_describe(between)}")
    if cfg.content_prior and result.prior is not None:
        lines.append(f"theory prior (--content-prior, measured from the seed-0 init model, content_scores.csv): "
                     f"{result.prior.label}")
    if cfg.checkpoint.weights == RANDOM_TINY:  # the smoke note comes first, as in every verdict
        lines.insert(0, "(smoke run: too small to test the paper's claims; the 'pretrained' model is a tiny random "
                        "GPT-2, so it is an init too)")
    return lines
