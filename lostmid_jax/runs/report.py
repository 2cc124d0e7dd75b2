"""One self-contained HTML page of a run: it opens offline in any browser and can be mailed as is.

    from lostmid_jax.runs import write_report
    write_report("runs/depth_sweep/2026...")            # -> runs/depth_sweep/2026.../report.html

The page holds the verdict, the summary table, every figure (PNG embedded as
base64 data; a run saved without figures gets them drawn from its tables),
the first rows of each table with a note when more exist, the column
dictionary, the configuration, the package versions and the git revision.
It has no script, no stylesheet, font or image from elsewhere, and no link
out of the page (only links to its own sections).
"""

from __future__ import annotations

import base64
import html
import io as _bytes_io
import json
import pathlib

from ..validation import check_int
from .atomic import write_atomic
from .load import Run, load_run
from .plot import draw

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 0;
       color: #1a1a1a; background: #fafafa; line-height: 1.45; }
main { max-width: 1100px; margin: 0 auto; padding: 1.2rem 1.5rem 3rem; background: #fff; }
h1 { font-size: 1.5rem; margin: 0.2rem 0 0.3rem; }
h2 { font-size: 1.2rem; border-bottom: 2px solid #0072B2; padding-bottom: 0.2rem; margin-top: 2rem; }
h3 { font-size: 1rem; margin: 1.2rem 0 0.4rem; }
nav a { margin-right: 0.9rem; color: #0072B2; text-decoration: none; }
.meta { color: #555; font-size: 0.9rem; }
pre { background: #f3f3f3; padding: 0.7rem; overflow-x: auto; font-size: 0.82rem; border-radius: 4px; }
.verdict { background: #eef5fb; border-left: 4px solid #0072B2; padding: 0.6rem 0.9rem 0.6rem 2rem;
           font-size: 0.95rem; }
.verdict li { margin: 0.25rem 0; }
figure { margin: 1rem 0 1.6rem; }
figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: 0.88rem; color: #444; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.8rem; margin: 0.3rem 0; }
th, td { border: 1px solid #ddd; padding: 0.2rem 0.45rem; text-align: right; white-space: nowrap; }
th { background: #f0f0f0; }
table.dict td, table.dict th, table.kv td, table.kv th { text-align: left; white-space: normal; }
.note { font-size: 0.85rem; color: #555; }
"""

_NA = "\u2014"  # shown for a missing value (an empty CSV field)


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _figure_sources(run: Run) -> tuple[dict[str, tuple[str, bytes]], str]:
    """({stem: (mime type, bytes)}, note): the run's PNG (else SVG) files, or figures drawn from its data."""
    found: dict[str, tuple[str, bytes]] = {}
    for path in run.figures:
        mime = {".png": "image/png", ".svg": "image/svg+xml"}.get(path.suffix)
        if mime is not None and (path.stem not in found or path.suffix == ".png"):
            found[path.stem] = (mime, path.read_bytes())
    if found:
        return found, "the run's figure files"
    from ..plots import style

    out = {}
    figures = draw(run)
    try:
        for stem, fig in figures.items():
            buffer = _bytes_io.BytesIO()
            with style.context():
                fig.savefig(buffer, format="png", dpi=style.DPI)
            out[stem] = ("image/png", buffer.getvalue())
    finally:
        import matplotlib.pyplot as plt

        for fig in figures.values():
            plt.close(fig)
    return out, "drawn from the run's tables for this report (the run saved no figure files)"


def _figures_html(run: Run) -> str:
    sources, note = _figure_sources(run)
    if not sources:
        return "<p class='note'>This run has no figures.</p>"
    parts = [f"<p class='note'>{len(sources)} figures, {_e(note)}; <code>lostmid plot RUN_DIR --format pdf</code> "
             "redraws them from the data.</p>"]
    for stem, (mime, data) in sorted(sources.items()):
        encoded = base64.b64encode(data).decode("ascii")
        parts.append(f"<figure id='fig-{_e(stem)}'><img alt='{_e(stem)}' src='data:{mime};base64,{encoded}'>"
                     f"<figcaption>{_e(stem)}.{mime.split('/')[1].split('+')[0]}</figcaption></figure>")
    return "\n".join(parts)


def _cell(value) -> str:
    import pandas as pd

    if pd.api.types.is_scalar(value) and pd.isna(value):  # NaN, and pandas' NA of a nullable bool column
        return _NA
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _table_html(frame, rows: int) -> str:
    head = "".join(f"<th>{_e(c)}</th>" for c in frame.columns)
    body = []
    for record in frame.head(rows).itertuples(index=False):
        body.append("<tr>" + "".join(f"<td>{_e(_cell(v))}</td>" for v in record) + "</tr>")
    return (f"<div class='scroll'><table class='data'><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table></div>")


def _tables_html(run: Run, rows: int) -> str:
    if not run.tables:
        return "<p class='note'>This run has no tables.</p>"
    parts = []
    for stem, frame in run.tables.items():
        n, m = frame.shape
        shown = min(n, rows)
        note = (f"all {n} rows" if shown == n else
                f"the first {shown} of {n} rows (truncated; the full table is {stem}.csv in the run directory)")
        parts.append(f"<h3 id='table-{_e(stem)}'>{_e(stem)}.csv</h3>"
                     f"<p class='note'>{m} columns; {_e(note)}. {_NA} marks a missing value.</p>"
                     + _table_html(frame, rows))
    return "\n".join(parts)


def _dictionary_html(run: Run) -> str:
    if not run.columns:
        return "<p class='note'>This run has no column dictionary (columns.csv).</p>"
    parts = ["<p class='note'>From columns.csv. An empty unit: a dimensionless number, a flag or a label.</p>"]
    order = [s for s in run.tables if s in run.columns] + [s for s in run.columns if s not in run.tables]
    for stem in order:
        body = "".join(f"<tr><td><code>{_e(c)}</code></td><td>{_e(meaning)}</td><td>{_e(unit)}</td></tr>"
                       for c, (meaning, unit) in run.columns[stem].items())
        parts.append(f"<h3>{_e(stem)}.csv</h3><div class='scroll'><table class='dict'><thead><tr><th>column</th>"
                     f"<th>meaning</th><th>unit</th></tr></thead><tbody>{body}</tbody></table></div>")
    return "\n".join(parts)


def _verdict_html(verdict: str | None) -> str:
    lines = [line.strip() for line in (verdict or "").splitlines() if line.strip()]
    if not lines:
        return "<p class='note'>This run has no verdict.</p>"
    return "<ul class='verdict'>" + "".join(f"<li>{_e(line)}</li>" for line in lines) + "</ul>"


def _flat(values: dict, prefix: str = "") -> list[tuple[str, str]]:
    """Nested config values as (dotted field, JSON text) pairs; lists stay on one line."""
    pairs = []
    for key, value in values.items():
        if isinstance(value, dict) and value:
            pairs.extend(_flat(value, f"{prefix}{key}."))
        else:
            pairs.append((prefix + key, value if isinstance(value, str) else json.dumps(value)))
    return pairs


def _kv_html(pairs) -> str:
    body = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in pairs)
    return f"<table class='kv'><tbody>{body}</tbody></table>"


def _files_html(run: Run) -> str:
    items = []
    for path in sorted(run.path.iterdir()):
        if path.name.startswith("."):
            continue
        if path.is_symlink():  # never followed: what it points to is not the run's
            items.append((path.name, "symlink (not read)"))
            continue
        folder = path.is_dir()
        items.append((path.name + ("/" if folder else ""), "folder" if folder else f"{path.lstat().st_size:,} bytes"))
    return _kv_html(items)


def build_html(run: Run, *, rows: int = 20) -> str:
    """The report page of ``run`` (:func:`~lostmid_jax.runs.load_run`), ``rows`` rows per table."""
    rows = check_int("rows", rows, 1)
    record = run.record
    title = f"{run.experiment} run {run.path.name}"
    meta = [f"created {record.get('created_utc', '?')}", f"status {record.get('status', '?')}"]
    if record.get("seconds") is not None:
        meta.append(f"{record['seconds']} s")
    if record.get("smoke"):
        meta.append("smoke run")
    info = [(k, json.dumps(v) if isinstance(v, (dict, list)) else v) for k, v in record.items()
            if k not in ("config", "versions", "git_revision", "created_utc", "experiment")]
    provenance = [("git revision", record.get("git_revision") or "unknown"),
                  *sorted((record.get("versions") or {}).items())]
    sections = [
        ("verdict", "Verdict", _verdict_html(run.verdict)),
        ("summary", "Summary", f"<pre>{_e(run.summary.rstrip())}</pre>" if run.summary
         else "<p class='note'>This run has no summary table.</p>"),
        ("figures", "Figures", _figures_html(run)),
        ("tables", "Tables", _tables_html(run, rows)),
        ("columns", "Column dictionary", _dictionary_html(run)),
        ("config", "Configuration", _kv_html(_flat(record.get("config", {})))
         + "<h3>Run information</h3>" + _kv_html(info)),
        ("versions", "Versions and git revision", _kv_html(provenance)),
        ("files", "Files in the run directory", _files_html(run)),
    ]
    nav = "".join(f"<a href='#{key}'>{_e(name)}</a>" for key, name, _ in sections)
    body = "\n".join(f"<section id='{key}'><h2>{_e(name)}</h2>\n{content}</section>" for key, name, content in sections)
    return ("<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>\n"
            f"<title>{_e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n<main>\n"
            f"<h1>{_e(title)}</h1>\n<p class='meta'>{_e(' · '.join(meta))} · {_e(str(run.path))}</p>\n"
            f"<nav>{nav}</nav>\n{body}\n</main>\n</body>\n</html>\n")


def write_report(run_dir, out=None, *, rows: int = 20) -> pathlib.Path:
    """Write the report of run directory ``run_dir`` to ``out`` (default ``run_dir``/report.html); its path."""
    rows = check_int("rows", rows, 1)
    run = load_run(run_dir)
    path = pathlib.Path(out).expanduser() if out is not None else run.path / "report.html"
    if path.is_dir():
        raise ValueError(f"out: {path} is a directory; give the HTML file's name")
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomic(path, build_html(run, rows=rows))


__all__ = ["build_html", "write_report"]
