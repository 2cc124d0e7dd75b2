"""A run's main table as text to paste: Markdown, LaTeX (booktabs) or CSV (``lostmid table``).

    render(["remedy", "verdict"], [["none", "helps"]], "md")     # '| remedy | verdict |\\n| --- | --- |\\n...'
    needed(tables, "effects", "remedies")                          # the DataFrame, or a one-line ValueError

Cells are strings, written as given (numbers already formatted with their
intervals, :func:`lostmid_jax.stats.format.fmt_ci`); Markdown escapes "|",
LaTeX escapes its special characters, CSV quotes as the csv module does.
"""

from __future__ import annotations

import csv
import io

FORMATS = ("md", "tex", "csv")
_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
        "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def check_format(value: str) -> str:
    """``value`` if it is one of FORMATS (ValueError naming ``format`` otherwise)."""
    if value not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {value!r}")
    return value


def _tex(text: str) -> str:
    return "".join(_TEX.get(ch, ch) for ch in text)


def render(header: list[str], rows: list[list[str]], fmt: str) -> str:
    """The table in ``fmt`` (one of FORMATS), ending with a line break."""
    fmt = check_format(fmt)
    if fmt == "csv":
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([header, *rows])
        return out.getvalue()
    if fmt == "md":
        line = lambda cells: "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"  # noqa: E731
        return "\n".join([line(header), line(["---"] * len(header)), *map(line, rows)]) + "\n"
    body = [" & ".join(_tex(str(c)) for c in cells) + r" \\" for cells in rows]
    return "\n".join([r"\begin{tabular}{" + "l" * len(header) + "}", r"\toprule",
                      " & ".join(_tex(h) for h in header) + r" \\", r"\midrule", *body, r"\bottomrule",
                      r"\end{tabular}"]) + "\n"


def needed(tables: dict, stem: str, experiment: str):
    """``tables[stem]``, or a ValueError naming the missing ``stem``.csv of the ``experiment`` run."""
    if stem not in tables:
        raise ValueError(f"run_dir: this {experiment} run holds no {stem}.csv, the table `lostmid table` prints "
                         "(an unfinished run, or files removed)")
    return tables[stem]


__all__ = ["FORMATS", "check_format", "needed", "render"]
