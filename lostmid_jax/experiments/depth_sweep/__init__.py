"""The depth sweep (the main job): the exact Step-0 profile summary over (schedule, H, L).

For every schedule (constant a, power-law a_l = a0 (l+1)^-b, or a custom
list), depth H and length L (plus the continuum limit) it records the
:class:`~lostmid_jax.theory.ProfileSummary` numbers together with the two
middle laws of :mod:`lostmid_jax.theory.middle_laws`, and states which law
holds where: the factorial law (ln 2)^(H-1)/(H-1)! of the all-attention path
(a = 1), or the geometric law (1-a)^H exp(2 sqrt(H a ln2/(1-a))) for a < 1
(docs/theory.md §4, proofs/08_factorial_middle.md).

Writes results.csv (one row per point; the continuum rows have an empty
``length`` and ``continuum`` True), profiles.csv (the influence rows that
figure 1 draws), table.txt, verdict.txt and four figures drawn from the CSVs.
Every column is described in :data:`COLUMNS`.

    config.py    what runs (Config, SMOKE)
    measure.py   the sweep: one results row per (schedule, H, L), figure 1's profiles, records
    claims.py    the verdict and the summary table
    columns.py   what every CSV column means (COLUMNS)
    figures      drawn by lostmid_jax.plots.depth_sweep from the CSVs alone
"""

from __future__ import annotations

from .claims import factorial_deviation, summary, verdict
from .columns import COLUMNS
from .config import SMOKE, SMOKE_HELP, Config
from .measure import (Result, ScheduleSpec, pick_evenly, point_record, profile_choice, profile_records, records, run,
                      schedule_specs)

NAME = "depth_sweep"
VERDICT_TITLE = "the factorial middle law"


def figures(tables: dict, cfg: Config) -> dict:
    """The four figures, drawn from the run's tables alone (:func:`lostmid_jax.plots.depth_sweep.figures`).

    ``tables``: {"results": DataFrame, "profiles": DataFrame} as ``lostmid_jax.runs.load_run`` returns them.
    Returns {"fig1_u_curves": Figure, ..., "fig4_peak_to_trough": Figure}.
    """
    from ...plots.depth_sweep import figures as draw

    return draw(tables, cfg)


def describe(result: Result) -> str:
    return f"{len(result.records)} points"


__all__ = ["COLUMNS", "Config", "NAME", "Result", "SMOKE", "SMOKE_HELP", "ScheduleSpec", "VERDICT_TITLE", "describe",
           "factorial_deviation", "figures", "pick_evenly", "point_record", "profile_choice", "profile_records",
           "records", "run", "schedule_specs", "summary", "verdict"]
