"""The measurements of `lostmid remedies`: the unmodified model and every remedy on the same probe set.

    base, remedies, valleys, beyond, scored = measure(cfg, model_cfg, model, probes, marker_ids, progress=True)
"""

from __future__ import annotations

import logging

from .config import Config

_LOG = logging.getLogger(__name__)


def _valley(rows):
    from ...stats.valley import valley_fit

    try:
        return valley_fit(rows, n_boot=200, seed=0) if rows.shape[1] >= 16 else None
    except ValueError:
        return None


def measure(cfg: Config, model_cfg, model, probes, marker_ids, *, progress: bool = True):
    """(base, {spec: (Remedy, Measurement or None, Effect or None, skipped reason or None)}, valleys,
    extrapolated, the probe sets scored) of the unmodified model and every remedy of ``cfg`` on ``probes``."""
    from tqdm.auto import tqdm

    from ...probes.context import extrapolated
    from ...probes.remedies import apply_remedy, parse_remedy
    from ...probes.remedy_effects import compare
    from ...probes.remedy_effects import measure as measure_model
    from ...runs.stop import checked

    beyond, scored = {"none": extrapolated(model_cfg, probes.positions_needed)}, [probes]
    sizes = dict(attention_examples=cfg.attention_examples, influence_examples=cfg.influence_examples,
                 batch=cfg.batch, theory_a=cfg.theory_a, n_boot=cfg.n_boot, seed=cfg.probe.seed)
    _LOG.info(f"measuring the unmodified model and {len(cfg.remedies)} remedies on {probes.examples} examples x "
              f"{probes.passages} passages, T = {probes.length} (each remedy compiles once)")
    bar = tqdm(total=1 + len(cfg.remedies), disable=not progress, desc="models")
    base = measure_model(model, probes, **sizes)
    bar.update()
    out, valleys = {}, {"none": _valley(base.received_raw)}
    for spec in checked(cfg.remedies):
        remedy = parse_remedy(spec)
        applied = apply_remedy(remedy, model, probes, marker_ids=marker_ids, context=cfg.context)
        if applied.skipped:
            out[spec] = (remedy, None, None, applied.skipped)
        else:
            m = measure_model(applied.model, applied.probes, **sizes)
            out[spec] = (remedy, m, compare(base, m, n_boot=cfg.n_boot, seed=cfg.probe.seed), None)
            valleys[spec] = _valley(m.received_raw)
            beyond[spec] = extrapolated(model_cfg, applied.probes.positions_needed)
            scored.append(applied.probes)
        bar.update()
    bar.close()
    return base, out, valleys, beyond, scored


__all__ = ["measure"]
