"""A run's verdict read as a claims table: one row per judged claim, grouped by its heading.

    rows = claim_rows(run.verdict)   # [Claim(group, claim, measured, outcome, paper, reason), ...]

A claim line of a verdict (lostmid_jax.stats.verdicts.decide, via each experiment's verdict text) reads

    "  <claim>: <measured value [95% CI] ...>: <OUTCOME> (<reason>; ...; paper <value>; rule: <rule>)"

with OUTCOME one of REPRODUCED, REFUTED, inconclusive; an unindented line ending
in ":" names the group (a preset) of the lines after it. Lines of another shape
are not claims and give no row, and nothing after a line reading DETAILS is (the
reasons behind the claim lines, which the report folds).
"""

from __future__ import annotations

import dataclasses
import re

from ..stats.verdicts import INCONCLUSIVE, REFUTED, REPRODUCED

OUTCOMES = (REPRODUCED, REFUTED, INCONCLUSIVE)
DETAILS = "Details"  # a verdict line of its own: what follows it explains the claim lines above
_LINE = re.compile(r"^(?P<claim>[^:]+?): (?P<measured>.+): (?P<outcome>" + "|".join(OUTCOMES) +
                   r") \((?P<reason>.*)\)$")
_PAPER = re.compile(r"(?:^|; )paper (?P<paper>[^;]+?)(?:;|$)")


@dataclasses.dataclass(frozen=True)
class Claim:
    """One judged claim: its group (a preset, or ""), the claim, the measured value with its interval,
    the outcome, the paper's value ("" when the line names none) and the reason's first clause."""

    group: str
    claim: str
    measured: str
    outcome: str
    paper: str
    reason: str


def claim_rows(verdict: str | None) -> list[Claim]:
    """The claims of ``verdict`` (module docstring), in order."""
    rows, group = [], ""
    for raw in (verdict or "").splitlines():
        line = raw.strip()
        if raw == DETAILS:
            break
        if not line:
            continue
        if not raw.startswith((" ", "\t")) and line.endswith(":") and not _LINE.match(line):
            group = line[:-1]
            continue
        match = _LINE.match(line)
        if match is None:
            continue
        reason = match.group("reason")
        paper = _PAPER.search(reason)
        rows.append(Claim(group, match.group("claim"), match.group("measured"), match.group("outcome"),
                          paper.group("paper") if paper else "", reason.split(";")[0].strip()))
    return rows


__all__ = ["Claim", "DETAILS", "OUTCOMES", "claim_rows"]
