"""Alias kept for one release: load_run lives in :mod:`lostmid_jax.runs.load`, figures in :mod:`lostmid_jax.present.plot`,
tables in :mod:`lostmid_jax.runs.tables`."""

from .runs.load import FIGURE_FORMATS, Run, StoredConfigWarning, load_run
from .present.plot import draw, draw_figures, figure_title, parse_formats, save_figures
from .runs.tables import COLUMNS_FILE, UNDOCUMENTED, UndocumentedColumnsWarning, read_columns, read_table, read_tables

__all__ = ["COLUMNS_FILE", "FIGURE_FORMATS", "Run", "StoredConfigWarning", "UNDOCUMENTED",
           "UndocumentedColumnsWarning", "draw", "draw_figures", "figure_title", "load_run", "parse_formats",
           "read_columns", "read_table", "read_tables", "save_figures"]
