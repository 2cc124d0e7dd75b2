"""Run directories stored and read back: claiming one, config.json, CSV tables, units, load_run.

A run directory holds config.json (the arguments, package versions and git
revision), results as CSV files (one NA encoding: an empty field), their
column dictionary columns.csv (file, column, meaning, unit), verdict.txt,
table.txt, figures and, for experiments that resume, units/*.npz.

    claim.py        resolve_out, claim: --out resolved once, taken atomically (mkdir + flock); claim_run_dir checks
    ledger.py       .lostmid-files: the entries a run wrote (all that --replace-unfinished removes)
    stop.py         SIGINT / SIGTERM as a flag checked at every write and unit: never lost
                    (every write: a guard of the atomic writer, lostmid_jax.atomic, added here)
    outputs.py      where report and plot may write: a new path or their own output, never another run
    inside.py       reading a received run: only regular files inside it, no symlink out followed
    config.py       configs as data: jsonable, from_dict, to_dict, replace_path
    config_file.py  config.json: write_config, read_config, versions, git revision
    tables.py       CSV tables and columns.csv: write_csv, read_tables, read_columns; JSON lines: read_records
    units.py        the unit store: units/<stem>.npz (resumable runs)
    registry.py     the experiments a run may name (passed in: the package defining them registers them)
    load.py         load_run -> Run (typed tables, config, verdict, figures)

How a run is shown (figures redrawn, the HTML report, tables to paste) is
lostmid_jax.present, above this package; the writer itself is lostmid_jax.atomic.

    run = load_run("runs/depth_sweep/20260101-...")
    run.tables["results"]        # pandas.DataFrame, numeric columns numeric
    run.columns["results"]       # {column: (meaning, unit)}
    run.config, run.verdict, run.figures

runs/ imports only the bottom modules (atomic, untrusted, validation): no experiment
(they register into :mod:`.registry`), no plots or statistics; importing it loads
no jax, numpy, pandas or matplotlib.
"""

from __future__ import annotations

from ..atomic import add_guard, is_temporary, replacing, write_atomic
from . import ledger, stop
from .claim import claim_run_dir
from .config import (field_default, field_types, from_dict, is_sequence_type, jsonable, nested_class, replace_path,
                     to_dict, tuples_from_lists, unchecked)
from .config_file import CONFIG_FILE, git_revision, package_versions, read_config, write_config
from .load import FIGURE_FORMATS, Run, StoredConfigWarning, load_run
from .tables import (COLUMNS_FILE, UNDOCUMENTED, UndocumentedColumnsWarning, csv_name, dictionary, na_field,
                     read_columns, read_csv, read_records, read_table, read_tables, write_csv)
from .units import UNITS_DIR, UnitStore, load_unit, save_unit


def _stop_check(path) -> None:
    stop.check()


add_guard(_stop_check)  # a signal received since the last write stops the run before anything is written
add_guard(ledger.note)  # inside a run directory being recorded: the file listed before it exists

__all__ = ["COLUMNS_FILE", "CONFIG_FILE", "FIGURE_FORMATS", "Run", "StoredConfigWarning", "UNDOCUMENTED", "UNITS_DIR",
           "UndocumentedColumnsWarning", "UnitStore", "claim_run_dir", "csv_name", "dictionary",
           "field_default", "field_types", "from_dict", "is_temporary", "git_revision",
           "is_sequence_type", "jsonable", "load_run", "load_unit", "na_field", "nested_class", "package_versions",
           "read_columns", "read_config", "read_csv", "read_records", "read_table", "read_tables", "replace_path",
           "replacing", "save_unit", "to_dict", "tuples_from_lists", "unchecked",
           "write_atomic", "write_config", "write_csv"]
