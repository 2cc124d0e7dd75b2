"""A run directory read back as typed data, and its figures redrawn from that data alone.

    from lostmid_jax.io import load_run
    run = load_run("runs/depth_sweep/20260101-120000-000000")
    run.experiment               # "depth_sweep"
    run.config                   # the experiment's Config, rebuilt from config.json
    run.tables["results"]        # pandas.DataFrame: numeric columns numeric, True/False columns bool
    run.columns["results"]       # {column: (meaning, unit)} from columns.csv ("" unit: dimensionless)
    run.verdict, run.summary     # verdict.txt, table.txt (None when absent)
    run.figures                  # the figure files (PNG, PDF, SVG)
    figs = draw(run)             # {stem: Figure} = module.figures(run.tables, run.config)
    save_figures(figs, "out", ("pdf",))

An empty CSV field is the one missing-value encoding (NaN in the tables);
every other field is data, so a label such as "none" stays a string.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import re
import warnings

COLUMNS_FILE = "columns.csv"
"""The column dictionary of a run directory: one row (file, column, meaning, unit) per CSV column."""

UNDOCUMENTED = "(undocumented)"
"""The meaning columns.csv gives a column its experiment's COLUMNS leaves out."""

FIGURE_FORMATS = ("png", "pdf", "svg")
"""Formats :func:`save_figures` writes."""


class UndocumentedColumnsWarning(UserWarning):
    """A CSV of a run has columns its experiment's COLUMNS does not describe (an error under pytest)."""


class StoredConfigWarning(UserWarning):
    """config.json's configuration no longer validates here (e.g. a checkpoint directory that moved)."""


@dataclasses.dataclass(frozen=True)
class Run:
    """One run directory, read back (:func:`load_run`).

    Attributes:
      path: the run directory.
      experiment: the experiment module name recorded in config.json (e.g. "depth_sweep").
      config: that experiment's Config, rebuilt from config.json.
      tables: CSV stem -> pandas.DataFrame (columns typed; empty fields are NaN).
      columns: CSV stem -> {column: (meaning, unit)}, from columns.csv ({} when the run has none).
      verdict: verdict.txt, or None.
      summary: table.txt, or None.
      figures: the figure files at the top of the directory, sorted.
      record: all of config.json (versions, git_revision, created_utc, status, ...).
    """

    path: pathlib.Path
    experiment: str
    config: object
    tables: dict
    columns: dict
    verdict: str | None
    summary: str | None
    figures: tuple
    record: dict

    @property
    def module(self):
        """The experiment module (imports no jax)."""
        from .experiments import load

        return load(self.experiment)


def _read_text(path: pathlib.Path) -> str | None:
    return path.read_text() if path.is_file() else None


def read_table(path) -> "pandas.DataFrame":  # noqa: F821
    """One CSV of a run as a DataFrame: only the empty field is NA; "True"/"False" columns become
    bool (pandas' nullable "boolean" when some fields are empty); numbers are numeric."""
    import pandas as pd

    frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
    for name in frame.columns:
        column = frame[name]
        if column.dtype == object:
            values = set(column.dropna().tolist())
            if values and values <= {True, False}:
                frame[name] = column.astype("boolean")
    return frame


def read_tables(run_dir) -> dict:
    """{CSV stem: DataFrame} of every CSV at the top of ``run_dir`` except the column dictionary."""
    run_dir = pathlib.Path(run_dir)
    return {p.stem: read_table(p) for p in sorted(run_dir.glob("*.csv")) if p.name != COLUMNS_FILE}


def read_columns(run_dir) -> dict:
    """{CSV stem: {column: (meaning, unit)}} from ``run_dir``/columns.csv ({} when absent)."""
    from .io import read_csv

    path = pathlib.Path(run_dir) / COLUMNS_FILE
    out: dict = {}
    if path.is_file():
        for row in read_csv(path):
            out.setdefault(pathlib.Path(row["file"]).stem, {})[row["column"]] = (row["meaning"], row["unit"])
    return out


def _config(experiment: str, values: dict):
    """The experiment's Config from config.json's values; when they no longer validate here (a
    checkpoint that is not on this machine), the stored values unchecked, with a warning."""
    from .experiments import load
    from .experiments.configs import from_dict

    cls = load(experiment).Config
    try:
        return from_dict(cls, values)
    except ValueError as err:
        warnings.warn(f"config.json's config does not validate here ({err}); Run.config holds the stored "
                      "values unchecked", StoredConfigWarning, stacklevel=3)
        return _unchecked(cls, values)


def _unchecked(cls, values: dict):
    """``cls`` with ``values`` set and no __post_init__ (lists stored as tuples, nested configs built)."""
    from .experiments.configs import field_types, nested_class

    types = field_types(cls)
    obj = object.__new__(cls)
    for field in dataclasses.fields(cls):
        if field.name in values:
            value = values[field.name]
        elif field.default is not dataclasses.MISSING:
            value = field.default
        elif field.default_factory is not dataclasses.MISSING:
            value = field.default_factory()
        else:
            value = None
        inner = nested_class(types[field.name])
        if inner is not None and isinstance(value, dict):
            value = _unchecked(inner, value)
        elif isinstance(value, list):
            value = tuple(value)
        object.__setattr__(obj, field.name, value)
    return obj


def load_run(path) -> Run:
    """Read the run directory ``path`` back: config, typed tables, column dictionary, verdict, figures.

    Raises:
      ValueError: naming ``path`` when it is not a run directory (no config.json naming a known
        experiment).
    """
    from .experiments import EXPERIMENTS

    run_dir = pathlib.Path(path)
    config_path = run_dir / "config.json"
    if not config_path.is_file():
        raise ValueError(f"path: {str(path)!r} is not a run directory (it has no config.json)")
    try:
        record = json.loads(config_path.read_text())
    except ValueError as err:
        raise ValueError(f"path: {config_path} is not valid JSON ({err})") from None
    experiment = record.get("experiment") if isinstance(record, dict) else None
    if experiment not in EXPERIMENTS:
        raise ValueError(f"path: {config_path} names no known experiment (experiment={experiment!r}); "
                         f"expected one of {tuple(EXPERIMENTS)}")
    figures = tuple(sorted(p for p in run_dir.iterdir() if p.is_file() and p.suffix[1:] in FIGURE_FORMATS))
    return Run(path=run_dir, experiment=experiment, config=_config(experiment, record.get("config", {})),
               tables=read_tables(run_dir), columns=read_columns(run_dir),
               verdict=_read_text(run_dir / "verdict.txt"), summary=_read_text(run_dir / "table.txt"),
               figures=figures, record=record)


def draw(run: Run) -> dict:
    """{stem: matplotlib Figure} of ``run``, drawn from its tables and config alone."""
    return draw_figures(run.module, run.tables, run.config)


def draw_figures(module, tables: dict, config) -> dict:
    """``module.figures(tables, config)``, checked: a dict of file stem -> matplotlib Figure."""
    from matplotlib.figure import Figure

    name = getattr(module, "__name__", getattr(module, "NAME", "the experiment"))
    figures = module.figures(tables, config)
    if not isinstance(figures, dict) or not all(isinstance(k, str) and isinstance(v, Figure)
                                                for k, v in figures.items()):
        raise TypeError(f"{name}.figures(tables, cfg) must return a dict of file stem -> "
                        f"matplotlib Figure, got {type(figures).__name__}")
    return figures


def parse_formats(text: str) -> tuple[str, ...]:
    """'png,pdf' -> ('png', 'pdf'); ValueError naming --format for anything outside FIGURE_FORMATS."""
    formats = tuple(dict.fromkeys(p.strip().lower().lstrip(".") for p in text.split(",") if p.strip()))
    bad = [f for f in formats if f not in FIGURE_FORMATS]
    if not formats or bad:
        raise ValueError(f"--format must be a comma-separated list of {', '.join(FIGURE_FORMATS)}, got {text!r}")
    return formats


def save_figures(figures: dict, directory, formats=("png",), *, close: bool = True) -> list[pathlib.Path]:
    """Save each {stem: Figure} as ``directory``/stem.FORMAT (raster at the shared style's DPI, the
    style's savefig settings), each file written under a temporary name and renamed; closes them.

    Formats are saved in the order of :data:`FIGURE_FORMATS`, PNG first as the run saved it: a layout
    engine (constrained layout) settles at the first draw, so a PNG saved after a PDF can differ by a pixel.
    """
    import matplotlib.pyplot as plt

    from .plots import style

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
                tmp = directory / f".{stem}.{fmt}.tmp"
                with style.context():
                    fig.savefig(tmp, format=fmt, dpi=style.DPI)
                tmp.replace(path)
                written.append(path)
    finally:
        if close:
            for fig in figures.values():
                plt.close(fig)
    return written


def figure_title(fig) -> str:
    """The suptitle of ``fig``, else its first axes title, else '', as plain text (mathtext
    markup dropped: r"$\\max_j w_j$" -> "max_j w_j")."""
    title = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) is not None else ""
    if not title:
        title = next((ax.get_title() for ax in fig.axes if ax.get_title()), "")
    title = re.sub(r"\\([A-Za-z]+)", r"\1", title)
    return " ".join(title.replace("$", "").replace("{", "").replace("}", "").split())


__all__ = ["COLUMNS_FILE", "FIGURE_FORMATS", "Run", "StoredConfigWarning", "UNDOCUMENTED",
           "UndocumentedColumnsWarning", "draw", "draw_figures", "figure_title", "load_run", "parse_formats",
           "read_columns", "read_table", "read_tables", "save_figures"]
