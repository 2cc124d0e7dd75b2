"""Architecture counterfactuals: the exact Step-0 profile under other attention priors.

The paper (Chowdhury, arXiv:2603.10123) attributes the Step-0 valley to the
causal mask and the residual stream, not to the position encoding. This
sweep swaps the Step-0 attention matrix A (:mod:`lostmid_jax.masks`,
:mod:`lostmid_jax.masks.content`) and, for each prior and depth H,
summarizes the exact row w_j = (N_H ... N_1)[L, j], N_l = (1 - a_l) I + a_l A,
computed in O(H L) (docs/theory.md §2): masses
(:func:`lostmid_jax.theory.summarize_log_row`), and the *dead zone*: the
positions j < L whose density L w_j is below ``dead_below`` (1e-2: a hundred
times below uniform; docs/theory.md §4). The verdict compares each prior's
dead zone with the causal one's, from these numbers only
(:mod:`.claims`).

The default priors are one of each mask, the ALiBi slopes of the ALiBi paper
against the geometric 2^(-8h/N) for a head count that is not a power of two
(BLOOM-176B's 112), a causal prior with a self bonus, and the prior of each
popular decoder family (:data:`FAMILIES`): Llama and Qwen3 (causal), Mistral
(a window of 4096), BLOOM and MPT (ALiBi with their head counts). The
closing table states each family's dead-zone share.

Writes results.csv (one row per prior and H), profiles.csv (the rows figure 1
draws), table.txt, verdict.txt and three figures drawn from the CSVs. Every
column is described in :data:`COLUMNS`.

    config.py    what runs (the priors, Config, SMOKE)
    measure.py   the sweep: one results row per (prior, H), the profile rows, records
    claims.py    the table and the verdict
    columns.py   what every CSV column means (COLUMNS)
    figures      drawn by lostmid_jax.plots.counterfactuals from the CSVs alone
"""

from __future__ import annotations

from ..._moved import old_names
from .columns import COLUMNS
from .config import EXTRA_PRIORS, FAMILIES, SMOKE, SMOKE_HELP, Config, default_priors, families_of
from .measure import PROFILE_POINTS, Result, profile_depths, profile_record, profile_rows, records, run

NAME = "counterfactuals"
VERDICT_TITLE = "which priors remove or move the Step-0 dead zone"


def summary(result: Result) -> str:
    """The profile-depth summary per prior, middle density and dead share against H, and the family table."""
    from .claims import table

    return table(result)


def verdict(result: Result) -> list[str]:
    """The causal baseline, one line per other prior, the families, and a grouped summary (:mod:`.claims`)."""
    from .claims import verdict_lines

    return verdict_lines(result)


def figures(tables: dict, cfg: Config) -> dict:
    """The three figures, drawn from the run's tables alone (:func:`lostmid_jax.plots.counterfactuals.figures`).

    ``tables``: {"results": DataFrame, "profiles": DataFrame} as ``lostmid_jax.runs.load_run`` returns them.
    Returns {"fig1_profiles": Figure, "fig2_valley_vs_depth": Figure, "fig3_family_dead_zone": Figure}.
    """
    from ...plots.counterfactuals import figures as draw

    return draw(tables, cfg)


def describe(result: Result) -> str:
    return f"{len(result.records)} points"


__all__ = ["COLUMNS", "Config", "EXTRA_PRIORS", "FAMILIES", "NAME", "PROFILE_POINTS", "Result", "SMOKE", "SMOKE_HELP",
           "VERDICT_TITLE", "default_priors", "describe", "families_of", "figures", "profile_depths",
           "profile_record", "profile_rows", "records", "run", "summary", "verdict"]

__getattr__ = old_names(__name__)  # dead_zone: lostmid_jax._moved.NAMES (warns once, for one release)
