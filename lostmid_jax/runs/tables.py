"""The CSV tables of a run directory and their column dictionary (columns.csv).

One NA encoding: an empty field (None and NaN are written so; pandas reads it
back as NaN); every other field is data, so a label such as "none" stays a string.

    write_csv(run_dir / "results.csv", records)     # list of flat dicts
    read_tables(run_dir)["results"]                 # pandas.DataFrame, typed
    read_columns(run_dir)["results"]                # {column: (meaning, unit)}
"""

from __future__ import annotations

import csv
import pathlib
from io import StringIO

from ..atomic import write_atomic
from .inside import inside, inside_glob

COLUMNS_FILE = "columns.csv"
"""The column dictionary of a run directory: one row (file, column, meaning, unit) per CSV column."""

UNDOCUMENTED = "(undocumented)"
"""The meaning columns.csv gives a column its experiment's COLUMNS leaves out."""


class UndocumentedColumnsWarning(UserWarning):
    """A CSV of a run has columns its experiment's COLUMNS does not describe (an error under pytest)."""


def na_field(value):
    """``value`` as written to a CSV field: None and NaN (float or NumPy) become '' (the one NA encoding)."""
    if value is None:
        return ""
    try:
        if value != value:  # NaN, whatever its float type
            return ""
    except (TypeError, ValueError):  # arrays and other values without a truth value
        pass
    return value


def write_csv(path: pathlib.Path, records: list[dict]) -> pathlib.Path:
    """Write a list of flat dicts as CSV (columns from the first record, in order).

    Missing values (None, NaN) are written as an empty field, which
    :func:`read_table` (pandas) reads as NaN; booleans as True / False.
    """
    if not records:
        raise ValueError("records must not be empty")
    buffer = StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(records[0]), lineterminator="\r\n", restval="")
    writer.writeheader()
    writer.writerows({k: na_field(v) for k, v in row.items()} for row in records)
    return write_atomic(path, buffer.getvalue())


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _integers(fields: list[str]) -> bool:
    """Whether the non-empty ``fields`` are all integer literals (at least one)."""
    present = [f for f in fields if f != ""]
    return bool(present) and all(f.lstrip("+-").isdigit() for f in present)


def checked_rows(path) -> list[list[str]]:
    """The rows (header first) of a run's CSV file, checked for damage; ValueError naming the file and line.

    Refused: a file that is not UTF-8; a last line cut short (every line :func:`write_csv` writes ends
    with a line break, so a file that does not was truncated, e.g. mid-number: 1.2108926 read as 1.2);
    a quote left open (its field would swallow the next rows: no field holds a line break);
    a row whose field count differs from the header's (a ragged row would shift values into other
    columns); an empty line; a column whose fields are numbers except some (a damaged number).
    """
    path = pathlib.Path(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path} is not a UTF-8 CSV file ({err.reason} at byte {err.start})") from None
    if not text:
        raise ValueError(f"{path} is empty (not even a header)")
    lines = text.count("\n") + (not text.endswith("\n"))
    if not text.endswith("\n"):
        raise ValueError(f"{path} line {lines} is cut short: the file does not end with a line break, so it was "
                         "truncated (a number there may have lost digits); restore or re-run it")
    reader = csv.reader(StringIO(text, newline=""), strict=True)
    rows, start = [], 1
    try:
        for row in reader:
            if reader.line_num != start:  # a quoted field ran over line breaks: write_csv never writes one
                raise ValueError(f"{path} line {start} opens a quote that runs to line {reader.line_num}: an "
                                 "unterminated quote (it would swallow the rows after it); close or remove it")
            rows.append((start, row))
            start = reader.line_num + 1
    except csv.Error as err:
        raise ValueError(f"{path} line {start} is not valid CSV ({err}; an unterminated quote?)") from None
    header = rows[0][1]
    for number, row in rows[1:]:
        if not row:
            raise ValueError(f"{path} line {number} is empty; a run's CSV has no empty lines")
        if len(row) != len(header):
            raise ValueError(f"{path} line {number} has {len(row)} fields, the header has {len(header)} "
                             "(a ragged row: its values would land in other columns)")
    for i, column in enumerate(header):
        fields = [(number, row[i]) for number, row in rows[1:] if row[i] != ""]
        bad = [(number, v) for number, v in fields if not _number(v)]
        if bad and len(bad) < len(fields):
            number, value = bad[0]
            raise ValueError(f"{path} line {number} column {column!r}: {value!r} is not a number, while the "
                             f"column's other fields are numbers (a damaged value)")
    return [row for _, row in rows]


def read_csv(path: pathlib.Path) -> list[dict]:
    """Read a CSV written by :func:`write_csv` (values as strings, checked by :func:`checked_rows`;
    :func:`read_table` gives typed tables)."""
    header, *rows = checked_rows(path)
    return [dict(zip(header, row)) for row in rows]


def read_table(path) -> "pandas.DataFrame":  # noqa: F821
    """One CSV of a run as a DataFrame: only the empty field is NA; "True"/"False" columns become
    bool (pandas' nullable "boolean" when some fields are empty); numbers are numeric, and a column of
    integers with empty fields is pandas' nullable "Int64" (not float). The file is
    checked first (:func:`checked_rows`: truncation, ragged rows, damaged numbers name the file and line)."""
    import pandas as pd

    header, *rows = checked_rows(path)
    text = StringIO()
    csv.writer(text, lineterminator="\n").writerows([header, *rows])
    text.seek(0)
    frame = pd.read_csv(text, keep_default_na=False, na_values=[""])
    for i, name in enumerate(frame.columns):
        column = frame[name]
        if column.dtype == "float64" and column.isna().any() and _integers([row[i] for row in rows]):
            frame[name] = column.astype("Int64")  # integers with empty fields stay integers (pandas' nullable)
        elif column.dtype == object:
            values = set(column.dropna().tolist())
            if values and values <= {True, False}:
                frame[name] = column.astype("boolean")
    return frame


def read_tables(run_dir) -> dict:
    """{CSV stem: DataFrame} of every CSV at the top of ``run_dir`` except the column dictionary
    (each a regular file inside the run directory: :func:`lostmid_jax.runs.inside.inside_glob`)."""
    return {p.stem: read_table(p) for p in inside_glob(run_dir, "*.csv") if p.name != COLUMNS_FILE}


def read_records(run_dir, name: str) -> list[dict] | None:
    """The JSON-lines file ``run_dir``/``name`` (e.g. diagnose's examples.jsonl) as a list of objects, None when
    absent; read as every run file is (:func:`lostmid_jax.runs.inside.inside`: no symlink out followed; the
    bytes by :func:`lostmid_jax.untrusted.read_text_file`, each line by its parse_json). ValueError naming the
    file and line for text that is not UTF-8, a line that is not a JSON object, or a cut last line."""
    from ..untrusted import parse_json, read_text_file

    path = inside(run_dir, name)
    if path is None:
        return None
    text = read_text_file(path)
    if text and not text.endswith("\n"):
        raise ValueError(f"{path} line {text.count(chr(10)) + 1} is cut short (no line break at the end): truncated")
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        row = parse_json(line, f"{path} line {number}", allow_nan=True)  # written by json.dumps (NaN allowed)
        if not isinstance(row, dict):
            raise ValueError(f"{path} line {number} is not a JSON object")
        out.append(row)
    return out


def check_grid(path, frame, columns: tuple[str, str]) -> None:
    """A table of square-grid cells (e.g. a heat map's query_bin, key_bin): every cell (a, b) of [0, n)^2
    exactly once, n = 1 + the largest bin, each a non-negative integer; ValueError naming the file and the
    line (row r of the table is line r + 2) of the first bad, repeated or missing cell (cells are written
    row by row, so cell (a, b) belongs at line a n + b + 2)."""
    import numpy as np

    a_name, b_name = columns
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{path} has no column {missing[0]!r}, which its grid of cells needs")
    values = [frame[c].to_numpy(dtype=object) for c in columns]
    for row in range(len(frame)):
        cell = [values[0][row], values[1][row]]
        if not all(isinstance(v, (int, np.integer)) and v >= 0 for v in cell):
            raise ValueError(f"{path} line {row + 2}: {a_name}={cell[0]!r}, {b_name}={cell[1]!r} must be bin "
                             "numbers (integers >= 0)")
    if not len(frame):
        return
    n = 1 + int(max(values[0].max(), values[1].max()))
    seen: dict = {}
    for row, cell in enumerate(zip(values[0].tolist(), values[1].tolist())):
        if cell in seen:
            raise ValueError(f"{path} line {row + 2} repeats the cell {a_name}={cell[0]}, {b_name}={cell[1]} of "
                             f"line {seen[cell] + 2}")
        seen[cell] = row
    if len(seen) != n * n:
        a, b = next((a, b) for a in range(n) for b in range(n) if (a, b) not in seen)
        raise ValueError(f"{path} line {a * n + b + 2}: the cell {a_name}={a}, {b_name}={b} is missing; the grid "
                         f"has {n} x {n} = {n * n} cells and the file {len(seen)} rows (cut short or edited); "
                         "restore or re-run it")


def read_columns(run_dir) -> dict:
    """{CSV stem: {column: (meaning, unit)}} from ``run_dir``/columns.csv ({} when absent)."""
    path = inside(run_dir, COLUMNS_FILE)
    out: dict = {}
    if path is not None:
        for row in read_csv(path):
            out.setdefault(pathlib.Path(row["file"]).stem, {})[row["column"]] = (row["meaning"], row["unit"])
    return out


def csv_name(name: str) -> str:
    """``name`` with ".csv" appended unless it ends so."""
    return name if name.endswith(".csv") else f"{name}.csv"


def dictionary(exp, tables: dict[str, list[dict]]) -> tuple[list[dict], dict[str, list[str]]]:
    """(rows of columns.csv, {file: columns COLUMNS leaves out}) for the CSV ``tables`` of ``exp``.

    ``exp.COLUMNS`` maps a CSV file name (with or without ".csv") to {column: (meaning, unit)}.
    """
    documented = getattr(exp, "COLUMNS", {})
    documented = {csv_name(k): v for k, v in documented.items()} if isinstance(documented, dict) else {}
    rows, missing = [], {}
    for name, records in tables.items():
        known = documented.get(name, {})
        for column in records[0]:
            if column in known:
                meaning, unit = known[column]
            else:
                meaning, unit = UNDOCUMENTED, ""
                missing.setdefault(name, []).append(column)
            rows.append({"file": name, "column": column, "meaning": meaning, "unit": unit})
    return rows, missing


__all__ = ["COLUMNS_FILE", "UNDOCUMENTED", "UndocumentedColumnsWarning", "check_grid", "csv_name", "dictionary",
           "na_field", "read_columns", "read_csv", "read_records", "read_table", "read_tables", "write_csv"]
