"""The Content prior measured from a model's Step-0 content scores, and the rows of content_scores.csv
(step0 and compare with --content-prior).

    prior = measured_content_prior(model, L)          # the Content prior of its Step-0 scores
    rows = content_records(prior, L, preset="toy")    # rows of content_scores.csv (meanings: CONTENT_SCORES)

Shapes: L positions, D width, H layers, N heads.
"""

from __future__ import annotations

import dataclasses

CONTENT_LENGTH = 256
"""Positions at which a model's content scores are measured (:func:`measured_content_prior`): measure_scores
holds every layer's H N L^2 probabilities (float64, several copies), so L is capped there."""

CONTENT_SCORES = {
    "layer": ("layer l, 1..H", ""),
    "head": ("query head h, 1..N", ""),
    "self_bonus": ("mean self bonus s_ii - mean_{j != i} s_ij of the row-centred content scores at Step 0 "
                   "(the Content prior's diag)", "logit"),
    "offdiag_score": ("mean row-centred off-diagonal score (the Content prior's base; cancels in the softmax)",
                      "logit"),
    "measured_length": (f"positions L' = min(L, {CONTENT_LENGTH}) of the N(0, 1) inputs the scores were "
                        "measured on", "positions"),
}
"""Meaning and unit of each column of :func:`content_records` (content_scores.csv of step0 --content-prior
and of lostmid compare): the Content prior's measured scores."""


def measured_content_prior(model, length: int):
    """The Content prior measured from ``model`` (its Step-0 content scores), for L = ``length``.

    The mean self bonus and off-diagonal score per layer and head are measured at
    L' = min(L, CONTENT_LENGTH) positions (:func:`lostmid_jax.analysis.prior_for` with
    ``content=True``, 2 N(0, 1) inputs, seed 0); where L' < L the same scores are placed over the
    model's mask at L (the mask prior of ``prior_for(cfg, L)``).
    """
    from .. import theory
    from .prior_bridge import prior_for

    measured_length = min(length, CONTENT_LENGTH)
    measured = prior_for(model.cfg, measured_length, model=model, content=True)
    if measured_length == length:
        return measured
    mask = prior_for(model.cfg, length).support  # its mask (ALiBi is returned only where it is causal at L)
    return theory.check_prior(dataclasses.replace(measured, mask=mask), length)


def content_records(prior, length: int, **keys) -> list[dict]:
    """Rows of content_scores.csv for one prior: per layer l = 1..H and head h = 1..N the measured
    self bonus (the Content prior's diag) and off-diagonal score (its base); none unless ``prior``
    is a Content prior. ``keys`` (e.g. preset, variant) lead each row."""
    from .. import theory

    if not isinstance(prior, theory.Content):
        return []
    return [dict(**keys, layer=layer + 1, head=head + 1, self_bonus=float(bonus), offdiag_score=float(base),
                 measured_length=min(length, CONTENT_LENGTH))
            for layer, (bonuses, bases) in enumerate(zip(prior.diag, prior.base))
            for head, (bonus, base) in enumerate(zip(bonuses, bases))]


__all__ = ["CONTENT_LENGTH", "CONTENT_SCORES", "content_records", "measured_content_prior"]
