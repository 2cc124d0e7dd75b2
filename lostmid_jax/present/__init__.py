"""A run shown to people: its figures redrawn, one HTML page, its tables as text to paste.

Above plots/ and stats/ and the run directories (lostmid_jax.runs, which stores a
run and knows nothing of how it is shown); below the experiments, which give
their report page a title and a results table, and the ``lostmid`` command.

    plot.py           draw, save_figures: a run's figures redrawn from its tables (``lostmid plot``)
    report.py         write_report: one self-contained HTML page (``lostmid report``)
    page.py           PageTable, page_parts: the title and results table an experiment gives its report page
    mathml.py         inline: the ASCII formulas of verdicts and tables as inline MathML
    verdict_table.py  claim_rows: a verdict's claim lines as a claims table
    paste.py          render: a run's main table as Markdown, LaTeX or CSV (``lostmid table``)

    from lostmid_jax import experiments                 # the experiments a run may name
    from lostmid_jax.present import write_report
    write_report("runs/depth_sweep/2026...")            # -> runs/depth_sweep/2026.../report.html

Importing it loads no jax, numpy, pandas or matplotlib.
"""

from __future__ import annotations

from .page import PageTable, page_parts
from .plot import draw, draw_figures, failure_line, figure_title, parse_formats, plain_title, save_figures
from .report import build_html, write_report

__all__ = ["PageTable", "build_html", "draw", "draw_figures", "failure_line", "figure_title", "page_parts",
           "parse_formats", "plain_title", "save_figures", "write_report"]
