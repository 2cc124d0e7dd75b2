"""One self-contained HTML page of a run: it opens offline in any browser and can be mailed as is.

    from lostmid_jax.present import write_report
    write_report("runs/depth_sweep/2026...")            # -> runs/depth_sweep/2026.../report.html

The page opens with a title naming what was measured (the experiment's
``page_title``, :mod:`.page`; else its one-line description) and a two-line
abstract (experiment, sizes, smoke or not, date, version; the run directory's
name, never a local path), then the claims table (claim, paper value, measured
with its CI, verdict highlighted) where the verdict judges claims, or the
experiment's results table (its ``page_table``), the verdict (what follows its
Details line folded), and every figure
(PNG embedded as base64 data; a run saved without figures gets them drawn from
its tables). The summary table, each CSV (a per-column summary and its first
rows), the column dictionary, the configuration, the package versions and the
files are folded (<details>), each with a one-line summary. Formulas of the
verdict are inline MathML (:mod:`.mathml`).
It has no script, no stylesheet, font or image from elsewhere, and no link
out of the page (only links to its own sections).
"""

from __future__ import annotations

import base64
import html
import io as _bytes_io
import json
import pathlib

from ..atomic import write_atomic
from ..runs.load import Run, load_run
from ..runs.outputs import REPORT_MARK, report_path, tidied
from ..runs.registry import describe
from ..validation import check_int
from .mathml import inline
from .page import PageTable, page_parts
from .plot import draw
from .verdict_table import DETAILS, OUTCOMES, claim_rows

_FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif'
_CSS = """
body { font-family: FONT; margin: 0;
       color: #1a1a1a; background: #fafafa; line-height: 1.45; }
math { font-family: FONT; font-size: 1em; }""".replace("FONT", _FONT) + """
main { max-width: 1100px; margin: 0 auto; padding: 1.2rem 1.5rem 3rem; background: #fff; }
h1 { font-size: 1.5rem; margin: 0.2rem 0 0.3rem; }
h2 { font-size: 1.2rem; border-bottom: 2px solid #0072B2; padding-bottom: 0.2rem; margin-top: 2rem; }
h3 { font-size: 1rem; margin: 1.2rem 0 0.4rem; }
nav a { margin-right: 0.9rem; color: #0072B2; text-decoration: none; }
.meta { color: #555; font-size: 0.9rem; }
pre { background: #f3f3f3; padding: 0.7rem; overflow-x: auto; max-width: 100%; font-size: 0.78rem;
      border-radius: 4px; }
.abstract { color: #333; font-size: 0.95rem; margin: 0.1rem 0; }
.smoke { background: #fff4d6; border: 1px solid #e6c25a; border-radius: 3px; padding: 0 0.3rem; }
.verdict { background: #eef5fb; border-left: 4px solid #0072B2; padding: 0.6rem 0.9rem 0.6rem 2rem;
           font-size: 0.92rem; }
.verdict li { margin: 0.25rem 0; }
.verdict ul { padding-left: 1.2rem; }
.outcome { font-weight: 600; border-radius: 3px; padding: 0 0.35rem; white-space: nowrap; }
.REPRODUCED, .good { background: #d6f0e3; color: #0b5d3b; }
.REFUTED, .bad { background: #fbdcd0; color: #8a2a00; }
.inconclusive, .neutral { background: #ececec; color: #444; }
table.results td:first-child, table.results th, table.results td.words { text-align: left; }
table.results td.words { white-space: normal; min-width: 9rem; }
table.results td.words .outcome { white-space: normal; display: inline-block; }
table.results { font-size: 0.85rem; }
table.claims td, table.claims th { text-align: left; white-space: normal; vertical-align: top; }
table.claims { font-size: 0.85rem; width: 100%; }
details { margin: 0.5rem 0; }
details > summary { cursor: pointer; font-weight: 600; }
details > summary .note { font-weight: normal; }
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


def _column_summary(frame, meanings: dict) -> str:
    """One row per column: meaning, unit, the range of a numeric column (or its distinct values), missing."""
    import pandas as pd

    body = []
    for column in frame.columns:
        values = frame[column]
        missing = int(values.isna().sum())
        present = values.dropna()
        if present.empty:
            shown = _NA
        elif pd.api.types.is_numeric_dtype(present) and not pd.api.types.is_bool_dtype(present):
            lo, hi = present.min(), present.max()
            shown = _cell(lo) if lo == hi else f"{_cell(lo)} \u2026 {_cell(hi)}"
        else:
            distinct = list(dict.fromkeys(map(str, present)))
            shown = ", ".join(distinct[:6]) + (f", \u2026 ({len(distinct)} distinct)" if len(distinct) > 6 else "")
        meaning, unit = meanings.get(column, ("", ""))
        body.append(f"<tr><td><code>{_e(column)}</code></td><td>{_e(shown)}</td><td>{missing or ''}</td>"
                    f"<td>{_e(unit)}</td><td>{inline(meaning)}</td></tr>")
    return ("<div class='scroll'><table class='dict'><thead><tr><th>column</th><th>values (min \u2026 max)</th>"
            f"<th>missing</th><th>unit</th><th>meaning</th></tr></thead><tbody>{''.join(body)}</tbody></table></div>")


def _tables_html(run: Run, rows: int) -> str:
    if not run.tables:
        return "<p class='note'>This run has no tables.</p>"
    parts = ["<p class='note'>Each table folded: what its columns hold, then its first rows. "
             f"{_NA} marks a missing value.</p>"]
    for stem, frame in run.tables.items():
        n, m = frame.shape
        shown = min(n, rows)
        note = (f"all {n} rows" if shown == n else
                f"the first {shown} of {n} rows (truncated; the full table is {stem}.csv in the run directory)")
        parts.append(f"<details id='table-{_e(stem)}'><summary>{_e(stem)}.csv <span class='note'>{n} rows \u00d7 "
                     f"{m} columns</span></summary>" + _column_summary(frame, run.columns.get(stem, {}))
                     + f"<p class='note'>{_e(note)}.</p>" + _table_html(frame, rows) + "</details>")
    return "\n".join(parts)


def _dictionary_html(run: Run) -> str:
    if not run.columns:
        return "<p class='note'>This run has no column dictionary (columns.csv).</p>"
    parts = ["<p class='note'>From columns.csv. An empty unit: a dimensionless number, a flag or a label.</p>"]
    order = [s for s in run.tables if s in run.columns] + [s for s in run.columns if s not in run.tables]
    for stem in order:
        body = "".join(f"<tr><td><code>{_e(c)}</code></td><td>{inline(meaning)}</td><td>{_e(unit)}</td></tr>"
                       for c, (meaning, unit) in run.columns[stem].items())
        parts.append(f"<details><summary>{_e(stem)}.csv <span class='note'>{len(run.columns[stem])} columns"
                     "</span></summary><div class='scroll'><table class='dict'><thead><tr><th>column</th>"
                     f"<th>meaning</th><th>unit</th></tr></thead><tbody>{body}</tbody></table></div></details>")
    return "\n".join(parts)


def _highlight(text: str) -> str:
    """``text`` as HTML: formulas in MathML, each outcome word (REPRODUCED, REFUTED, inconclusive) marked."""
    out = inline(text)
    for outcome in OUTCOMES:
        out = out.replace(f": {outcome} (", f": <span class='outcome {outcome}'>{outcome}</span> (")
    return out


def _verdict_html(verdict: str | None) -> str:
    """The verdict as a list; indented lines nest under the line above them; the lines after a line reading
    DETAILS are folded into a <details> block of their own."""
    lines = [line for line in (verdict or "").splitlines() if line.strip()]
    if not lines:
        return "<p class='note'>This run has no verdict.</p>"
    if DETAILS in lines:
        at = lines.index(DETAILS)
        folded = _verdict_list(lines[at + 1:]) if lines[at + 1:] else ""
        head = _verdict_list(lines[:at]) if lines[:at] else ""
        return f"{head}<details class='verdict-details'><summary>{DETAILS}</summary>{folded}</details>"
    return _verdict_list(lines)


def _verdict_list(lines: list[str]) -> str:
    """Non-empty verdict lines as a nested list (indented lines under the line above them)."""
    html_, open_sub = ["<ul class='verdict'>"], False
    for line in lines:
        nested = line.startswith((" ", "\t"))
        if nested and not open_sub:
            html_.append("<ul>")
            open_sub = True
        elif not nested and open_sub:
            html_.append("</ul></li>")
            open_sub = False
        elif not nested and len(html_) > 1:
            html_.append("</li>")
        html_.append(f"<li>{_highlight(line.strip())}" + ("</li>" if nested else ""))
    html_.append("</ul></li></ul>" if open_sub else "</li></ul>")
    return "".join(html_)


def _claims_html(verdict: str | None) -> str | None:
    """The claims table (:func:`.verdict_table.claim_rows`), or None when the verdict judges no claim."""
    rows = claim_rows(verdict)
    if not rows:
        return None
    body, group = [], None
    for row in rows:
        if row.group != group:
            group = row.group
            if group:
                body.append(f"<tr><th colspan='4'>{inline(group)}</th></tr>")
        body.append(f"<tr><td>{inline(row.claim)}</td><td>{_e(row.paper) or _NA}</td><td>{inline(row.measured)}"
                    f"</td><td><span class='outcome {row.outcome}'>{row.outcome}</span><br>"
                    f"<span class='note'>{inline(row.reason)}</span></td></tr>")
    return ("<table class='claims'><thead><tr><th>claim</th><th>paper</th><th>measured [95% CI]</th>"
            f"<th>verdict</th></tr></thead><tbody>{''.join(body)}</tbody></table>"
            "<p class='note'>The verdict rule (docs/step0.md): each claim judged on its own number at its stated "
            "threshold: REPRODUCED when the whole 95% interval meets the claim, REFUTED when the whole interval "
            "misses it, otherwise inconclusive; the shape test is a claim of its own line. The reasons are in the "
            "verdict's details below.</p>")


_TONES = {"helps": "good", "middle better": "good", "above chance": "good", "hurts": "bad", "middle worse": "bad"}
"""The outcome words a results table highlights green or red (by how they start); any other outcome is grey."""


def _tone(outcome: str) -> str:
    return next((tone for word, tone in _TONES.items() if outcome.startswith(word)), "neutral")


def _results_html(table: PageTable) -> str:
    """The experiment's results table (:class:`.page.PageTable`): every cell escaped, formulas in MathML, the
    outcome column highlighted."""
    head = "".join(f"<th>{inline(h)}</th>" for h in table.header)
    body = []
    for row in table.rows:
        cells = []
        for i, cell in enumerate(row):
            text = inline(cell) if cell != "" else _NA
            if i in table.outcomes and cell:
                cells.append(f"<td class='words'><span class='outcome {_tone(cell)}'>{text}</span></td>")
            else:
                cells.append(f"<td>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    note = f"<p class='note'>{inline(table.note)}</p>" if table.note else ""
    return (f"<div class='scroll'><table class='results'><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table></div>{note}")


def _flat(values: dict, prefix: str = "") -> list[tuple[str, str]]:
    """Nested config values as (dotted field, JSON text) pairs; lists stay on one line."""
    pairs = []
    for key, value in values.items():
        if isinstance(value, dict) and value:
            pairs.extend(_flat(value, f"{prefix}{key}."))
        else:
            pairs.append((prefix + key, value if isinstance(value, str) else json.dumps(value)))
    return pairs


def _local_paths_hidden(pairs, run: Run) -> list[tuple[str, str]]:
    """Config values that are paths of this machine shown without them: a path inside the run directory as
    RUN_DIR/..., any other absolute path as .../its name (the page is sent to others)."""
    given = [str(run.path)] if run.path.is_absolute() else []  # never "." or "..": every dot would go
    roots = sorted({*given, str(run.path.resolve())}, key=len, reverse=True)
    out = []
    for key, value in pairs:
        text = str(value)
        for root in roots:
            text = text.replace(root, "RUN_DIR")
        if text.startswith(("/", "~")) or (len(text) > 2 and text[1:3] == ":\\"):
            text = "\u2026/" + pathlib.PurePath(text).name
        out.append((key, text))
    return out


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


_SIZE_FIELDS = ("presets", "preset", "model", "length", "lengths", "depths", "alphas", "seeds", "steps",
                "interventions", "remedies", "seq_lengths", "examples")


def _title(run: Run, named: str | None = None) -> str:
    """``named`` (the experiment's page_title), else its one-line description (lostmid_jax.experiments.EXPERIMENTS),
    capitalized."""
    text = named or describe(run.experiment)[1]
    return text[:1].upper() + text[1:]


def _sizes(config: dict) -> str:
    """'presets toy, length 32, seeds 2': the config fields that size a run, shallowest first."""
    found = {}
    for key, value in sorted(_flat(config), key=lambda kv: kv[0].count(".")):
        name = key.rsplit(".", 1)[-1]
        if name in _SIZE_FIELDS and name not in found and value not in ("null", "[]"):
            text = value.strip("[]").replace('"', "").replace(",", ", ").replace(",  ", ", ")
            found[name] = f"{name.replace('_', ' ')} {text}"
    return ", ".join(found[name] for name in _SIZE_FIELDS if name in found)


def _abstract(run: Run) -> str:
    """Two lines: the command, its sizes and whether it is a smoke run; then date, version, revision, time."""
    record = run.record
    command = describe(run.experiment)[0]
    sizes = _sizes(record.get("config", {}))
    smoke = ("<span class='smoke'>smoke run: too small to test the paper's claims</span>" if record.get("smoke")
             else "full-size run")
    first = f"<code>lostmid {_e(command)}</code>" + (f" \u00b7 {_e(sizes)}" if sizes else "") + f" \u00b7 {smoke}"
    created = str(record.get("created_utc", "?"))
    date = created[:16].replace("T", " ") + " UTC" if len(created) >= 16 else created
    versions = record.get("versions") or {}
    second = [f"run {date}", f"lostmid-jax {versions.get('lostmid-jax', '?')}",
              f"git {str(record.get('git_revision') or 'unknown')[:12]}", f"status {record.get('status', '?')}"]
    if record.get("seconds") is not None:
        second.append(f"{float(record['seconds']):.0f} s")
    second.append(f"run directory {run.path.resolve().name}")  # "." and ".." name no directory
    return (f"<p class='abstract'>{first}</p>\n"
            f"<p class='abstract meta'>{_e(' · '.join(second))}</p>")


def _fold(summary: str, content: str) -> str:
    return f"<details><summary>{summary}</summary>{content}</details>"


def build_html(run: Run, *, rows: int = 20) -> str:
    """The report page of ``run`` (:func:`~lostmid_jax.runs.load_run`), ``rows`` rows per table."""
    rows = check_int("rows", rows, 1)
    record = run.record
    named, results = page_parts(run.module, run.tables, run.config)
    title = _title(run, named)
    info = [(k, json.dumps(v) if isinstance(v, (dict, list)) else v) for k, v in record.items()
            if k not in ("config", "versions", "git_revision", "created_utc", "experiment")]
    provenance = [("git revision", record.get("git_revision") or "unknown"),
                  *sorted((record.get("versions") or {}).items())]
    config_pairs = _local_paths_hidden(_flat(record.get("config", {})), run)
    info = _local_paths_hidden(info, run)
    summary_lines = (run.summary or "").rstrip().splitlines()
    claims = _claims_html(run.verdict)
    verdict = _verdict_html(run.verdict)
    sections = []
    if claims is not None:
        sections.append(("claims", "Claims", claims))
        verdict = _fold("The verdict in full <span class='note'>(reasons, misfit tests, null references)</span>",
                        verdict)
    elif results is not None:
        sections.append(("results", "Results", _results_html(results)))
    sections += [
        ("verdict", "Verdict", verdict),
        ("figures", "Figures", _figures_html(run)),
        ("summary", "Summary table", _fold(
            f"table.txt <span class='note'>{len(summary_lines)} lines, as the run printed it</span>",
            f"<pre>{_e(run.summary.rstrip())}</pre>") if run.summary
         else "<p class='note'>This run has no summary table.</p>"),
        ("tables", "Tables", _tables_html(run, rows)),
        ("columns", "Column dictionary", _dictionary_html(run)),
        ("config", "Configuration", _fold(
            f"config.json <span class='note'>{len(config_pairs)} fields; {_e(_sizes(record.get('config', {})))}"
            "</span>", _kv_html(config_pairs) + "<h3>Run information</h3>" + _kv_html(info))),
        ("versions", "Versions and git revision", _fold(
            f"{len(provenance) - 1} packages <span class='note'>git {_e(str(provenance[0][1])[:12])}</span>",
            _kv_html(provenance))),
        ("files", "Files in the run directory", _fold("the files <span class='note'>names and sizes</span>",
                                                      _files_html(run))),
    ]
    nav = "".join(f"<a href='#{key}'>{_e(name)}</a>" for key, name, _ in sections)
    body = "\n".join(f"<section id='{key}'><h2>{_e(name)}</h2>\n{content}</section>" for key, name, content in sections)
    return ("<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
            f"{REPORT_MARK}\n<meta name='viewport' content='width=device-width, initial-scale=1'>\n"
            f"<title>{_e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n<main>\n"
            f"<h1>{_e(title)}</h1>\n{_abstract(run)}\n"
            f"<nav>{nav}</nav>\n{body}\n</main>\n</body>\n</html>\n")


def write_report(run_dir, out=None, *, rows: int = 20) -> pathlib.Path:
    """Write the report of run directory ``run_dir`` to ``out`` (default ``run_dir``/report.html); its path.

    Never replaces a file that is not a report page, nor writes inside another run
    (:func:`lostmid_jax.runs.outputs.report_path`).
    """
    rows = check_int("rows", rows, 1)
    run = load_run(run_dir)
    path = report_path(run, out)
    page = build_html(run, rows=rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tidied(run, [path]):
        return write_atomic(path, page)


__all__ = ["build_html", "write_report"]
