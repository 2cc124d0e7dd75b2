"""What a report page shows first for an experiment: a title naming what was measured, and a results table.

An experiment module may define, from the run's config and tables alone (as its ``figures``):

    page_title(cfg) -> str                        # "Inference-time remedies on tiny random Llama at T = 48"
    page_table(tables, cfg) -> PageTable | None   # the claims-style table the page opens with

The report (:mod:`.report`) shows the title as the page's <h1> and the table
above the verdict and the figures; without them it falls back to the
experiment's one-line description and the verdict alone. Cells are plain text:
the report escapes them and renders their ASCII formulas as MathML.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class PageTable:
    """A results table of a report page.

    Attributes:
      header: the column names.
      rows: one tuple of text cells per row, as many as ``header`` ('' for a missing value).
      note: one line under the table (what the numbers are, where they come from).
      outcomes: the indices of the columns holding a verdict in words (highlighted, wrapped, left-aligned).
    """

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    note: str = ""
    outcomes: tuple[int, ...] = ()

    def __post_init__(self):
        bad = [row for row in self.rows if len(row) != len(self.header)]
        if bad:
            raise ValueError(f"rows must have {len(self.header)} cells like the header, got {len(bad[0])}: {bad[0]}")


def page_parts(module, tables: dict, config) -> tuple[str | None, PageTable | None]:
    """(``module.page_title(config)``, ``module.page_table(tables, config)``), None for each it does not define.

    A run they cannot be read from (an older or partial run without a table or column they read, a stored
    config whose fields no longer validate) gives None rather than an error: the page then falls back."""
    parts = []
    for name, args in (("page_title", (config,)), ("page_table", (tables, config))):
        make = getattr(module, name, None)
        try:
            parts.append(make(*args) if make is not None else None)
        except (KeyError, AttributeError, TypeError, ValueError):
            parts.append(None)
    return parts[0], parts[1]


__all__ = ["PageTable", "page_parts"]
