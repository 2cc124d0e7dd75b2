"""A run's figures, redrawn from its tables alone, and saved beside it (``lostmid plot``).

    figs = draw(load_run(path))          # {stem: Figure} = module.figures(run.tables, run.config)
    save_figures(figs, "out", ("pdf",))
"""

from __future__ import annotations

import pathlib
import re

from ..atomic import replacing
from ..runs.load import FIGURE_FORMATS, Run
from ..runs.outputs import FIGURE_CREATOR


def draw(run: Run) -> dict:
    """{stem: matplotlib Figure} of ``run``, drawn from its tables and config alone."""
    return draw_figures(run.module, run.tables, run.config)


def draw_figures(module, tables: dict, config) -> dict:
    """``module.figures(tables, config)``, checked: a dict of file stem -> matplotlib Figure."""
    from matplotlib.figure import Figure

    name = getattr(module, "__name__", getattr(module, "NAME", "the experiment"))
    try:
        figures = module.figures(tables, config)
    except KeyError as err:  # a run without results.csv, or a table without a column its figures read
        have = ", ".join(f"{stem}.csv" for stem in tables) or "no CSV files"
        raise ValueError(f"the run's figures cannot be drawn: {err.args[0]!r} is missing (a table or column they "
                         f"are drawn from; the run has {have})") from None
    if not isinstance(figures, dict) or not all(isinstance(k, str) and isinstance(v, Figure)
                                                for k, v in figures.items()):
        raise TypeError(f"{name}.figures(tables, cfg) must return a dict of file stem -> "
                        f"matplotlib Figure, got {type(figures).__name__}")
    return figures


def failure_line(err: BaseException) -> str:
    """One line naming the figure function an error came from and the error: "effects: ValueError: ...".

    The figure is the first function the innermost ``figures`` called on the way to the error (a
    decorator's wrapper skipped); else the innermost lostmid_jax function.
    """
    import traceback

    names = [f.name for f in traceback.extract_tb(err.__traceback__)]
    called = names[len(names) - names[::-1].index("figures"):] if "figures" in names else []  # after the last
    ours = [f.name for f in traceback.extract_tb(err.__traceback__) if "lostmid_jax" in f.filename]
    where = next((name for name in called if name != "wrapper"), None) or (ours[-1] if ours else "figures")
    message = " ".join(str(err).split()) or "(no message)"
    return f"{where}: {type(err).__name__}: {message}"


def parse_formats(text: str) -> tuple[str, ...]:
    """'png,pdf' -> ('png', 'pdf'); ValueError naming --format for anything outside FIGURE_FORMATS."""
    formats = tuple(dict.fromkeys(p.strip().lower().lstrip(".") for p in text.split(",") if p.strip()))
    bad = [f for f in formats if f not in FIGURE_FORMATS]
    if not formats or bad:
        raise ValueError(f"--format must be a comma-separated list of {', '.join(FIGURE_FORMATS)}, got {text!r}")
    return formats


def save_figures(figures: dict, directory, formats=("png",), *, close: bool = True) -> list[pathlib.Path]:
    """Save each {stem: Figure} as ``directory``/stem.FORMAT (raster at the shared style's DPI, the
    style's savefig settings, Creator :data:`lostmid_jax.runs.outputs.FIGURE_CREATOR` in the file's
    metadata: what tells the figures lostmid wrote from other files), each file written under a temporary
    name and renamed; closes them.

    Formats are saved in the order of :data:`FIGURE_FORMATS`, PNG first as the run saved it: a layout
    engine (constrained layout) settles at the first draw, so a PNG saved after a PDF can differ by a pixel.
    """
    import matplotlib.pyplot as plt

    from ..plots import style

    bad = [f for f in formats if f not in FIGURE_FORMATS]
    if bad:
        raise ValueError(f"formats must be among {FIGURE_FORMATS}, got {bad}")
    formats = sorted(set(formats), key=FIGURE_FORMATS.index)
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    try:
        for stem, fig in figures.items():
            for fmt in formats:
                path = directory / f"{stem}.{fmt}"
                with replacing(path) as f, style.context():
                    fig.savefig(f, format=fmt, dpi=style.DPI, metadata={"Creator": FIGURE_CREATOR})
                written.append(path)
    finally:
        if close:
            for fig in figures.values():
                plt.close(fig)
    return written


_TEX = {"partial": "\u2202", "rho": "\u03c1", "alpha": "\u03b1", "beta": "\u03b2", "gamma": "\u03b3",
        "delta": "\u03b4", "sigma": "\u03c3", "mu": "\u03bc", "tau": "\u03c4", "theta": "\u03b8",
        "lambda": "\u03bb", "pi": "\u03c0", "ln": "ln", "log": "log", "exp": "exp", "max": "max", "min": "min",
        "sqrt": "\u221a", "cdot": "\u00b7", "times": "\u00d7", "pm": "\u00b1", "geq": "\u2265", "leq": "\u2264",
        "to": "\u2192", "infty": "\u221e", "approx": "\u2248", "sim": "~", "mathrm": "", "mathbf": "", "text": ""}


def plain_title(text: str) -> str:
    """Mathtext as plain text: r"$\\|\\partial y_L\\|_F$" -> "‖∂y_L‖_F", r"$\\log_{10}$" -> "log10"; the lines
    of a multi-line title separated by " | " (never run together)."""
    import re

    lines = []
    for line in str(text).splitlines():
        line = line.replace("\\log_{10}", "log10").replace("\\|", "\u2016").replace("\\,", " ")
        line = re.sub(r"\\([A-Za-z]+)", lambda m: _TEX.get(m.group(1), m.group(1)), line)
        line = re.sub(r"_\{([^{}]*)\}", r"_\1", line)
        line = re.sub(r"\^\{([^{}]*)\}", r"^(\1)", line)
        line = " ".join(line.replace("$", "").replace("{", "").replace("}", "").split())
        if line:
            lines.append(line)
    return " | ".join(lines)


def figure_title(fig) -> str:
    """The suptitle of ``fig``, else its first axes title, else '', as plain text (:func:`plain_title`:
    mathtext markup rendered as Unicode, lines separated)."""
    title = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) is not None else ""
    if not title:
        title = next((ax.get_title() for ax in fig.axes if ax.get_title()), "")
    return plain_title(title)


__all__ = ["FIGURE_FORMATS", "draw", "draw_figures", "failure_line", "figure_title", "parse_formats", "plain_title",
           "save_figures"]
