"""The micro-training verdict: statements computed from snapshot records.

    lines = verdict(cfg, records)     # cfg: micro_training.Config; records: Result.records

Every number is a mean across seeds with its 95% confidence interval in
brackets, mean +- t(0.975, S-1) SE (SE = sample std / sqrt(S); changes are
paired by seed); a claim is made only when the interval excludes 0 (or
chance). Positive quantities (pathway norms and their ratios) get the
interval of their geometric mean on the log scale
(:func:`lostmid_jax.stats.intervals.log_interval`: never below 0; none with
fewer than 3 seeds). At step 0 the untrained model guesses over its whole
vocabulary, so its accuracy is judged against 1/V, never called below the
retrieval chance level of a trained guess. With one seed there is no interval
and no claim; the smoke note comes first. The Step-0
profile these runs start from is docs/theory.md §1; what training changes is
outside the paper's Step-0 claims (docs/theory.md §5).
"""

from __future__ import annotations

import numpy as np

from ...stats.chance import ABOVE, against_chance
from ...stats.format import fmt_ci
from ...stats.intervals import LOG_ROWS, log_interval, mean_halfwidth
from ...train import tasks
from ...train.snapshots import central_needle_bins
from .config import Config
from .tables import with_current_names

SMOKE_STEPS = 10  # runs this short (or with one seed) are smoke-sized: the verdict says so


def _series(records, variant, key, step) -> dict[int, float]:
    return {r["seed"]: r[key] for r in records if r["intervention"] == variant and r["step"] == step and key in r}


def _call(mean, half, what_pos, what_neg, neutral: str = "no clear change (the 95% CI includes 0)") -> str:
    if not np.isfinite(half):
        return "undetermined (one seed: no CI)"
    if mean - half > 0:
        return what_pos
    if mean + half < 0:
        return what_neg
    return neutral


def _ci(m, half, sign: str = "+", spec: str = ".3f") -> str:
    """'m [m - half, m + half]' (the 95% interval of :func:`mean_halfwidth`)."""
    return fmt_ci(m, m - half, m + half, f"{sign}{spec}", missing="n/a", no_ci="[no CI]")


def _log_ci(values, interval=None, spec: str = ".4g") -> str:
    """'g [lo, hi]' of positive values: the geometric mean and its log-scale 95% interval
    (:func:`~lostmid_jax.stats.intervals.log_interval`), or 'g (no interval with n < 3)'."""
    g, lo, hi = log_interval([v for v in values if v > 0]) if interval is None else interval
    return fmt_ci(g, lo, hi, spec, missing="n/a", no_ci=f"(no interval with n < {LOG_ROWS})")


def _ratio_call(interval) -> str:
    g, lo, hi = interval
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"undetermined (no interval with n < {LOG_ROWS} seeds)" if np.isfinite(g) else "undetermined"
    return "GROWS" if lo > 1 else "SHRINKS" if hi < 1 else "no clear change (the 95% CI includes 1)"


def accuracy_reading(cfg, m, half, step: int) -> str:
    """Retrieval accuracy m +- half (TrainConfig ``cfg``) after ``step`` steps against chance: at step 0 against
    1/V (untrained: a guess over the whole vocabulary), later against the retrieval chance level."""
    if step == 0:
        vocab_chance = 1.0 / cfg.vocab
        untrained = f"untrained: a guess over all V = {cfg.vocab} tokens, chance 1/V = {vocab_chance:.4f}"
        return _call(m - vocab_chance, half, ABOVE, f"at or below chance ({untrained})",
                     f"at or below chance ({untrained}; the 95% CI includes it)")
    return _against_chance(m, half, tasks.chance_accuracy(cfg))


def _against_chance(m, half, chance) -> str:
    """Accuracy m +- half against the retrieval chance level, in the words of :func:`.stats.chance.against_chance`
    (below it: the model's argmax over the whole vocabulary need not be a context value)."""
    if not np.isfinite(half):
        return "undetermined (one seed: no CI)"
    return against_chance(m - half, m + half, chance, below="the argmax may be any token, not only a context value")


def _fmt(values, sign: str = "+") -> str:
    return _ci(*mean_halfwidth(values), sign)


def _change(records, variant, key, first, last) -> tuple[dict, dict, tuple[float, float]]:
    a, b = _series(records, variant, key, first), _series(records, variant, key, last)
    return a, b, mean_halfwidth([b[s] - a[s] for s in b if s in a])


def _profile_lines(records, first, last) -> list[str]:
    v0, v1, (m, half) = _change(records, "none", "total_valley", first, last)
    lines = [f"valley depth log10(recency/middle), baseline: step {first} {_fmt(v0.values())}, step {last} "
             f"{_fmt(v1.values())}; change {_ci(m, half)} -> "
             + _call(m, half, "the relative valley DEEPENS", "the relative valley becomes SHALLOWER")]
    for path in ("value", "score"):
        a, b = _series(records, "none", f"{path}_norm", first), _series(records, "none", f"{path}_norm", last)
        ratio = log_interval([b[s] / a[s] for s in b if s in a and a[s] > 0])
        lines.append(f"{path} pathway norm, baseline (geometric mean [95% CI, log scale]): step {first} "
                     f"{_log_ci(a.values())} -> step {last} {_log_ci(b.values())}; ratio {_log_ci(None, ratio)} -> "
                     + _ratio_call(ratio))
    return lines


def _chunk_lines(records, first, last) -> list[str]:
    """Boundary spike and document-local U of the baseline (documents exist only with an LM input)."""
    s0, s1, (md, halfd) = _change(records, "none", "total_spike", first, last)
    lines = []
    if any(np.isfinite(v) for v in s1.values()):
        m1, half1 = mean_halfwidth(s1.values())
        lines.append(f"document-boundary spike log10(n_b / neighbour median), baseline step {last}: {_ci(m1, half1)} "
                     f"(change from step {first}: {_ci(md, halfd)}) -> "
                     + _call(m1, half1, "spikes at document boundaries", "dips at document boundaries"))
    u0, u1, (mu, halfu) = _change(records, "none", "total_doc_u", first, last)
    if any(np.isfinite(v) for v in u1.values()):
        m1, half1 = mean_halfwidth(u1.values())
        prefix = "total_doc_u_c"
        docs = sorted({k for r in records for k in r if k.startswith(prefix)}, key=lambda k: int(k[len(prefix):]))
        per = ", ".join(f"doc {int(k[len(prefix):]) + 1} {_fmt(_series(records, 'none', k, last).values())}" for k in docs)
        lines.append(f"document-local U log10(sqrt(start*end edge)/middle) per document, baseline: step {first} "
                     f"{_fmt(u0.values())}, step {last} {_ci(m1, half1)} ({per}) -> "
                     + _call(m1, half1, "a U INSIDE each document", "a hump inside each document")
                     + f"; change {_ci(mu, halfu)} -> "
                     + _call(mu, halfu, "the document-local U DEEPENS", "the document-local U becomes SHALLOWER"))
    return lines


def _accuracy_lines(exp, records, first, last) -> list[str]:
    """Accuracy by needle bin against chance for every variant, and each intervention against the baseline."""
    cfg, bins = exp.base, exp.base.needle_bins
    chance = tasks.chance_accuracy(cfg)
    how = (f"a uniform guess among min(V - 2, T) = {round(1 / chance)} ids; passages format, {cfg.kv_pairs} passages"
           if cfg.task == "passages" else f"uniform guess among the {cfg.kv_pairs} context values; "
           f"{cfg.kv_format} format, K, NV = {cfg.kv_sizes}")
    lines = [f"retrieval chance level {chance:.3f} ({how}); accuracy = mean over {bins} needle bins"]
    for variant, step in [("none", first)] + [(v, last) for v in exp.variants]:  # step 0: one model per seed
        m, half = mean_halfwidth(_series(records, variant, "acc_mean", step).values())
        by_bin = ", ".join(_fmt(_series(records, variant, f"acc_bin{b}", step).values(), "") for b in range(bins))
        head = f"{variant} accuracy step {step}: {_ci(m, half, '')} = {m / chance:.1f} x chance (by needle bin: {by_bin})"
        lines.append(f"{head} -> " + accuracy_reading(cfg, m, half, step))
    base_acc, v1 = _series(records, "none", "acc_middle", last), _series(records, "none", "total_valley", last)
    for variant in exp.variants[1:]:
        acc, val = _series(records, variant, "acc_middle", last), _series(records, variant, "total_valley", last)
        ma, half_a = mean_halfwidth([acc[s] - base_acc[s] for s in acc if s in base_acc])
        mv, half_v = mean_halfwidth([val[s] - v1[s] for s in val if s in v1])
        lines.append(f"{variant} vs baseline (paired by seed), step {last}: "
                     f"middle-bin {(central_needle_bins(bins) + 1).tolist()} accuracy {_ci(ma, half_a)} -> "
                     + _call(ma, half_a, "raises middle accuracy", "lowers middle accuracy")
                     + f"; valley {_ci(mv, half_v)} -> " + _call(mv, half_v, "deeper valley", "shallower valley")
                     + _paired(records, variant, "total_doc_u", last, "document-local U"))
    return lines


def _paired(records, variant, key, step, label) -> str:
    """'; <label> diff [95% CI] -> call' against the baseline (paired by seed), '' when undefined."""
    a, b = _series(records, "none", key, step), _series(records, variant, key, step)
    m, half = mean_halfwidth([b[s] - a[s] for s in b if s in a])
    return "" if not np.isfinite(m) else f"; {label} {_ci(m, half)} -> " + _call(m, half, "deeper", "shallower")


def verdict(exp, records: list[dict]) -> list[str]:
    """Statements on the valley, pathways, document boundaries and document-local U, and
    retrieval accuracy against chance and across interventions (mean [95% CI] over seeds); every statement
    after the baseline's valley follows a Details line (the report folds them under its results table)."""
    from ...present.verdict_table import DETAILS

    steps = sorted({r["step"] for r in records})
    first, last = steps[0], steps[-1]
    smoke = exp.base.steps <= SMOKE_STEPS or len(exp.seeds) < 2
    lines = ["(smoke run: too small to test the paper's claims)"] if smoke else []
    lines += [f"seeds {list(exp.seeds)}; mean [95% CI] across seeds; steps {first} -> {last}; the step-0 profile "
             f"is the model at initialization (docs/theory.md §1), the changes are beyond the paper's Step-0 "
             f"claims (docs/theory.md §5)"]
    profile = _profile_lines(records, first, last)
    lines += profile[:1] + [DETAILS] + profile[1:]
    if exp.base.task in ("lm", "mixed"):
        lines += _chunk_lines(records, first, last)
    if exp.base.task != "lm":
        lines += _accuracy_lines(exp, records, first, last)
    return lines


def page_title(cfg: Config) -> str:
    """The report page's title: the model, the task and its length, the steps, seeds and variants (present.page)."""
    base, model = cfg.base, cfg.base.model
    layers = f"{model.depth}-layer"
    length = (f"L = {base.lm_length}" if base.task in ("lm", "mixed") else f"{base.kv_pairs} key-value pairs"
              if base.task == "retrieval" else f"{base.kv_pairs} passages of {base.passage_length} tokens")
    seeds = ", ".join(str(s) for s in cfg.seeds)
    return (f"Micro-training of a {layers}, width-{model.width} decoder ({model.position}, {model.mask} mask) on "
            f"the {base.task} task, {length}: {base.steps} steps, seeds {seeds}, {' vs '.join(cfg.variants)}")


def page_table(tables: dict, cfg: Config):
    """The report's results table from snapshots.csv: the baseline at the first snapshot and every variant at
    the last, the valley depth and (a retrieval task) the accuracy, mean [95% CI] over seeds, the accuracy
    against chance (present.page.PageTable)."""
    from ...present.page import PageTable
    from ...stats.intervals import mean_halfwidth

    snap = with_current_names(tables["snapshots"])
    steps = sorted(set(snap["step"].astype(int)))
    retrieval = cfg.base.task != "lm" and "acc_mean" in snap.columns
    rows = []
    for variant, step in [("none", steps[0])] + [(v, steps[-1]) for v in cfg.variants]:
        at = snap[(snap["intervention"] == variant) & (snap["step"] == step)]
        cells = [variant, str(step)]
        for column in ("total_valley",) + (("acc_mean",) if retrieval else ()):
            m, half = mean_halfwidth(at[column].dropna().to_numpy(float))
            cells.append(fmt_ci(m, m - half, m + half, "+.3f" if column == "total_valley" else ".3f", missing="",
                                no_ci="[no CI]"))
        if retrieval:
            cells.append(accuracy_reading(cfg.base, m, half, step))
        rows.append(tuple(cells))
    header = ("variant", "step", "valley log10(recency/middle) [95% CI]") + (
        ("accuracy [95% CI]", "against chance") if retrieval else ())
    return PageTable(header, tuple(rows), outcomes=(4,) if retrieval else (),
                     note="Mean over seeds with its 95% t interval; the valley depth of the full Jacobian's "
                          "influence profile, the retrieval accuracy as the mean over needle bins. From "
                          "snapshots.csv; the per-bin accuracies, pathways and documents in the verdict and tables.")
